// Named workers: a partner vouches a partnerSubject into a customer as one person with domain roles, lists and revokes them.
/*
 * The person: a re-vouched subject is the person of its earlier mapping; else an existing member of the
 * organization named by `email`; else a new provisioned person (no password: they act only through worker
 * leases). Vouching writes real domain memberships (and approver standing), so every rule that reads roles
 * (session visibility, execute, approval policy) treats a worker lease exactly like that person.
 * Revoking ends the mapping and its leases at once; a person the mapping created also loses their memberships and
 * approver standing, an existing member keeps theirs.
 */
import * as z from 'zod';
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { WorkerMapping } from '../../storage/records/workers.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { toIso, type Clock } from '../clock.js';
import { AppError, notFound, validation } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { retryLostInsert } from '../lost-insert.js';
import { customerOf } from './customer-of.js';
import { setApprover } from './domain-approvers.js';

export const WORKER_LIMITS = Object.freeze({ subjectMaxLength: 200, nameMaxLength: 200, domainRolesMaxEntries: 50 });

/** Visible ASCII only: a subject travels in headers (X-Service-Subject) and must compare byte for byte. */
export const partnerSubjectSchema = z
  .string({ error: 'partnerSubject must be a string' })
  .regex(new RegExp(`^[\\x21-\\x7E]{1,${WORKER_LIMITS.subjectMaxLength}}$`), `partnerSubject must be 1-${WORKER_LIMITS.subjectMaxLength} visible ASCII characters`);

const domainRoleSchema = z.strictObject({
  domainId: z.uuid({ error: 'domainId must be a UUID' }),
  role: z.enum(['owner', 'editor', 'operator', 'viewer']),
  /** Adds the person to the domain's approval policy: they may decide approvals there. */
  approver: z.boolean().default(false),
});

export const vouchBodySchema = z.strictObject({
  partnerSubject: partnerSubjectSchema,
  name: z.string().trim().min(1).max(WORKER_LIMITS.nameMaxLength).optional(),
  /** Links an existing member of the organization; absent, a provisioned person is created. */
  email: z.email({ error: 'email must be an email address' }).max(320).optional(),
  domainRoles: z
    .array(domainRoleSchema)
    .min(1, 'domainRoles must name at least one domain')
    .max(WORKER_LIMITS.domainRolesMaxEntries)
    .refine((roles) => new Set(roles.map((r) => r.domainId)).size === roles.length, 'domainRoles must name each domain once'),
});

export type VouchBody = z.output<typeof vouchBodySchema>;
type DomainRoleEntry = VouchBody['domainRoles'][number];

export interface WorkerView {
  mappingId: string;
  partnerSubject: string;
  userId: string;
  name: string;
  email: string;
  domainRoles: DomainRoleEntry[];
  createdAt: string;
  updatedAt: string;
}

export interface WorkersService {
  list(principal: PartnerPrincipal, orgId: string): Promise<WorkerView[]>;
  /** `created` false when an active mapping of the subject was updated. */
  vouch(principal: PartnerPrincipal, orgId: string, body: VouchBody): Promise<{ worker: WorkerView; created: boolean }>;
  revoke(principal: PartnerPrincipal, orgId: string, mappingId: string): Promise<void>;
}

type Repos = Pick<PortRepositories, 'tenancy' | 'workers' | 'leases'>;

export function createWorkersService(deps: { store: Pick<Storage, 'repos' | 'writer'>; clock: Clock }): WorkersService {
  const { store, clock } = deps;

  async function view(repos: Pick<Repos, 'tenancy'>, mapping: WorkerMapping): Promise<WorkerView> {
    const user = await repos.tenancy.user(mapping.userId);
    return {
      mappingId: mapping.id,
      partnerSubject: mapping.partnerSubject,
      userId: mapping.userId,
      name: user?.name ?? '',
      email: user?.email ?? '',
      domainRoles: mapping.domainRoles,
      createdAt: toIso(mapping.createdAt),
      updatedAt: toIso(mapping.updatedAt ?? mapping.createdAt),
    };
  }

  async function assertDomains(orgId: string, roles: readonly DomainRoleEntry[]): Promise<void> {
    const domains = await Promise.all(roles.map((r) => store.repos.tenancy.domain(r.domainId)));
    const issues = roles.flatMap((r, i) =>
      domains[i]?.orgId === orgId ? [] : [{ path: `domainRoles.${i}.domainId`, message: 'is not a domain of this organization' }],
    );
    if (issues.length > 0) throw validation('The request is not valid.', { issues });
  }

  /** The person the subject acts as (see the header comment); inside the unit of work. */
  async function personFor(repos: Repos, orgId: string, body: VouchBody, mappingId: string, now: number): Promise<{ userId: string; provisioned: boolean }> {
    const { tenancy } = repos;
    const earlier = await repos.workers.latestBySubject(orgId, body.partnerSubject);
    if (earlier !== undefined && (await tenancy.user(earlier.userId)) !== undefined) return { userId: earlier.userId, provisioned: earlier.provisionedUser };
    if (body.email !== undefined) {
      const user = await tenancy.userByEmail(body.email);
      if (user !== undefined) {
        if ((await tenancy.orgRole(orgId, user.id)) === null) throw new AppError('CONFLICT', 'The email belongs to an account outside this organization.');
        return { userId: user.id, provisioned: false };
      }
    }
    const userId = newId();
    // `.invalid` (RFC 2606) can never receive mail: a provisioned person without an email of their own.
    const email = body.email ?? `worker-${mappingId}@partner-workers.invalid`;
    await tenancy.insertUser({ id: userId, email, name: body.name ?? body.partnerSubject, passwordHash: null, disabled: false, createdAt: now });
    return { userId, provisioned: true };
  }

  /**
   * A provisioned person's roles and approver standing are exactly what the mapping says. An existing member
   * only gains: their own standing (say, an owner who approves) predates the mapping and is never withdrawn by it.
   */
  async function applyRoles(
    repos: Pick<Repos, 'tenancy'>,
    userId: string,
    roles: readonly DomainRoleEntry[],
    previous: readonly DomainRoleEntry[],
    provisioned: boolean,
    now: number,
  ): Promise<void> {
    const { tenancy } = repos;
    for (const r of roles) {
      await tenancy.setDomainRole(r.domainId, userId, r.role, now);
      if (provisioned || r.approver) await setApprover(tenancy, r.domainId, userId, r.approver);
    }
    if (!provisioned) return;
    for (const old of previous) {
      if (roles.some((r) => r.domainId === old.domainId)) continue;
      await setApprover(tenancy, old.domainId, userId, false);
      await tenancy.removeDomainMember(old.domainId, userId);
    }
  }

  return {
    async list(principal, orgId) {
      await customerOf(store.repos, principal.partnerId, orgId);
      const active = (await store.repos.workers.activeOfOrganization(orgId)).filter((m) => m.partnerId === principal.partnerId);
      return Promise.all(active.map((mapping) => view(store.repos, mapping)));
    },

    async vouch(principal, orgId, body) {
      await customerOf(store.repos, principal.partnerId, orgId);
      await assertDomains(orgId, body.domainRoles);
      // A concurrent vouch of the same subject (or a new person with the same email) inserts first: run again, this
      // one re-vouches the winner's mapping, as a sequential retry would.
      return retryLostInsert(['worker_mappings', 'users'], () => store.writer.submit(async (tx) => {
        const { repos } = tx;
        const now = clock.now();
        const active = await repos.workers.activeBySubject(orgId, body.partnerSubject);
        if (active !== undefined) {
          await applyRoles(repos, active.userId, body.domainRoles, active.domainRoles, active.provisionedUser, now);
          await repos.workers.setDomainRoles(active.id, body.domainRoles, now);
          return { worker: await view(repos, (await repos.workers.mapping(active.id))!), created: false };
        }
        const id = newId();
        const person = await personFor(repos, orgId, body, id, now);
        if ((await repos.tenancy.orgRole(orgId, person.userId)) === null) await repos.tenancy.setOrgRole(orgId, person.userId, 'member', now);
        await applyRoles(repos, person.userId, body.domainRoles, [], person.provisioned, now);
        await repos.workers.insert({
          id,
          partnerId: principal.partnerId,
          orgId: orgId,
          partnerSubject: body.partnerSubject,
          userId: person.userId,
          domainRoles: body.domainRoles,
          provisionedUser: person.provisioned,
          createdAt: now,
          updatedAt: now,
          revokedAt: null,
        });
        return { worker: await view(repos, (await repos.workers.mapping(id))!), created: true };
      }));
    },

    async revoke(principal, orgId, mappingId) {
      await customerOf(store.repos, principal.partnerId, orgId);
      const mapping = isUuid(mappingId) ? await store.repos.workers.mapping(mappingId) : undefined;
      if (mapping === undefined || mapping.orgId !== orgId || mapping.partnerId !== principal.partnerId || mapping.revokedAt !== null) throw notFound();
      await store.writer.submit(async (tx) => {
        const { repos } = tx;
        const now = clock.now();
        if (!(await repos.workers.revoke(mapping.id, now))) throw notFound();
        await repos.leases.endLeasesOfMapping(mapping.id, now);
        const provisioned = mapping.provisionedUser;
        await applyRoles(repos, mapping.userId, [], mapping.domainRoles, provisioned, now);
        if (provisioned) await repos.tenancy.removeOrgMember(orgId, mapping.userId);
      });
    },
  };
}
