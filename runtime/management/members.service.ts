// Organization members (issue 13 item 6): list, invite with a single-use link, set roles, disable/enable.
/*
 * Invitations reuse the partner API's activation mechanism: an `svi_` secret, stored only as its SHA-256, redeemed
 * once at POST /api/v1/console/activate (runtime/partners/activation.service.ts) to set the first password. The
 * link is returned once, in the invite answer. Disabling a member sets `org_memberships.disabled_at`: the key
 * query, the token and console checks and every role lookup refuse that person in this organization at once.
 */
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { Member } from '../../storage/records/management.js';
import type { DomainRole, OrgRole } from '../../storage/records/tenancy.js';
import { hashSecret, mintSecret } from '../auth/secrets.js';
import { toIso, type Clock } from '../clock.js';
import { AppError, forbidden, notFound } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { retryLostInsert } from '../lost-insert.js';
import { activationLink } from '../partners/provisioning-outcome.js';
import { INVITATION_TTL_MS } from '../partners/customer-record.js';
import { domainOfOrg, requireOrgAdmin, type Manager } from './org-access.js';
import { viewPage, type Page, type PageQuery } from '../paging/keyset-page.js';

export interface DomainRoleChange {
  domainId: string;
  /** null removes the person from the domain. */
  role: DomainRole | null;
}

export interface MemberView {
  userId: string;
  email: string;
  name: string;
  orgRole: OrgRole;
  /** invited: no password yet (the invitation link was not redeemed). */
  status: 'active' | 'invited' | 'disabled';
  domainRoles: Array<{ domainId: string; role: DomainRole }>;
  createdAt: string;
}

export interface InviteInput {
  email: string;
  name: string;
  orgRole: OrgRole;
  domainRoles?: DomainRoleChange[];
}

export interface InviteAnswer {
  member: MemberView;
  /** The single-use link (shown once); null when the email already had an account with a password (it signs in as it is). */
  invitationLink: string | null;
  invitationExpiresAt: string | null;
}

export interface MembersService {
  list(manager: Manager, query: PageQuery): Promise<Page<MemberView>>;
  invite(manager: Manager, input: InviteInput, linkBase: string): Promise<InviteAnswer>;
  setRoles(manager: Manager, userId: string, input: { orgRole?: OrgRole; domainRoles?: DomainRoleChange[] }): Promise<MemberView>;
  setDisabled(manager: Manager, userId: string, disabled: boolean): Promise<MemberView>;
}

export function createMembersService(deps: { store: Storage; clock: Clock }): MembersService {
  const { repos, writer } = deps.store;
  const { management } = repos;
  // Helpers below take `from`: the store's repositories for reads, the unit's (`tx.repos`) inside one.
  type Repos = Pick<PortRepositories, 'tenancy' | 'management'>;

  const view = async (from: Repos, orgId: string, member: Member): Promise<MemberView> => ({
    userId: member.userId,
    email: member.email,
    name: member.name,
    orgRole: member.role,
    status: member.disabledAt !== null || member.userDisabled ? 'disabled' : member.hasPassword ? 'active' : 'invited',
    domainRoles: (await from.tenancy.domainRolesOfUser(member.userId, orgId)).map((d) => ({ domainId: d.domainId, role: d.role })),
    createdAt: toIso(member.createdAt),
  });

  const memberOf = async (from: Repos, orgId: string, userId: string): Promise<Member> => {
    const row = isUuid(userId) ? await from.management.member(orgId, userId) : undefined;
    if (row === undefined) throw notFound();
    return row;
  };

  /** Owners are changed only by owners, and the organization always keeps one active owner. */
  async function guardOwner(from: Repos, manager: Manager, callerRole: OrgRole, target: Member, losesOwner: boolean): Promise<void> {
    if ((target.role === 'owner' || losesOwner) && callerRole !== 'owner') throw forbidden('Only an organization Owner can change an Owner.');
    if (target.role === 'owner' && losesOwner && target.disabledAt === null && (await from.management.activeOwnerCount(manager.orgId)) <= 1) {
      throw new AppError('CONFLICT', 'The organization must keep at least one active Owner.');
    }
  }

  async function applyDomainRoles(from: Repos, manager: Manager, userId: string, changes: DomainRoleChange[] | undefined, now: number): Promise<void> {
    for (const change of changes ?? []) {
      const domain = await domainOfOrg(from, manager.orgId, change.domainId);
      if (change.role === null) await from.tenancy.removeDomainMember(domain.id, userId);
      else await from.tenancy.setDomainRole(domain.id, userId, change.role, now);
    }
  }

  return {
    list: async (manager, query) => {
      await requireOrgAdmin(repos, manager);
      return viewPage(
        query,
        (after, limit) => management.members(manager.orgId, after, limit),
        (member) => ({ createdAt: member.createdAt, id: member.userId }),
        (member) => view(repos, manager.orgId, member),
      );
    },

    async invite(manager, input, linkBase) {
      const callerRole = await requireOrgAdmin(repos, manager);
      if (input.orgRole === 'owner' && callerRole !== 'owner') throw forbidden('Only an organization Owner can invite an Owner.');
      const secret = mintSecret('svi_');
      const now = deps.clock.now();
      // A concurrent invite of the same person (into any organization) creates the user first: run again, this one
      // finds the account (and answers CONFLICT when the race was for this organization).
      const answer = await retryLostInsert(['users'], () => writer.submit(async (tx) => {
        const { tenancy, management } = tx.repos;
        let user = await tenancy.userByEmail(input.email);
        // Before the membership check: a concurrent invite of this existing person then commits first and is seen.
        if (user !== undefined) await tenancy.lockUser(user.id);
        if (user !== undefined && (await management.member(manager.orgId, user.id)) !== undefined) throw new AppError('CONFLICT', 'This person is already a member of the organization.');
        if (user === undefined) {
          user = { id: newId(), email: input.email, name: input.name, passwordHash: null, disabled: false, createdAt: now };
          await tenancy.insertUser(user);
        }
        await tenancy.setOrgRole(manager.orgId, user.id, input.orgRole, now);
        await applyDomainRoles(tx.repos, manager, user.id, input.domainRoles, now);
        // A link only sets a first password: an account that has one is never handed to a link (it could take it over).
        const needsLink = user.passwordHash === null;
        if (needsLink) {
          await tx.repos.provisioning.insertInvitation({ id: newId(), userId: user.id, tokenHash: hashSecret(secret), expiresAt: now + INVITATION_TTL_MS, usedAt: null, createdAt: now });
        }
        return { member: await view(tx.repos, manager.orgId, (await management.member(manager.orgId, user.id))!), needsLink };
      }));
      return {
        member: answer.member,
        invitationLink: answer.needsLink ? activationLink(linkBase, secret) : null,
        invitationExpiresAt: answer.needsLink ? toIso(now + INVITATION_TTL_MS) : null,
      };
    },

    async setRoles(manager, userId, input) {
      const callerRole = await requireOrgAdmin(repos, manager);
      return writer.submit(async (tx) => {
        const target = await memberOf(tx.repos, manager.orgId, userId);
        const now = deps.clock.now();
        if (input.orgRole !== undefined && input.orgRole !== target.role) {
          await guardOwner(tx.repos, manager, callerRole, target, target.role === 'owner' || input.orgRole === 'owner');
          await tx.repos.tenancy.setOrgRole(manager.orgId, target.userId, input.orgRole, now);
        }
        await applyDomainRoles(tx.repos, manager, target.userId, input.domainRoles, now);
        return view(tx.repos, manager.orgId, await memberOf(tx.repos, manager.orgId, userId));
      });
    },

    async setDisabled(manager, userId, disabled) {
      const callerRole = await requireOrgAdmin(repos, manager);
      return writer.submit(async (tx) => {
        const target = await memberOf(tx.repos, manager.orgId, userId);
        if (target.userId === manager.userId) throw new AppError('CONFLICT', 'You cannot disable yourself.');
        if (disabled && target.disabledAt === null) {
          await guardOwner(tx.repos, manager, callerRole, target, target.role === 'owner');
          await tx.repos.management.setMemberDisabled(manager.orgId, target.userId, deps.clock.now());
        } else if (!disabled && target.disabledAt !== null) {
          if (target.role === 'owner' && callerRole !== 'owner') throw forbidden('Only an organization Owner can change an Owner.');
          await tx.repos.management.setMemberDisabled(manager.orgId, target.userId, null);
        }
        return view(tx.repos, manager.orgId, await memberOf(tx.repos, manager.orgId, userId));
      });
    },
  };
}
