// Organizations, users, memberships and domains on PostgreSQL (storage/repos/tenancy.repo.ts's functions, async).
import type { ActiveOrgMembership, Domain, DomainMembership, DomainRole, ManifestRef, Organization, OrgMembership, OrgRole, User } from '../../records/tenancy.js';
import { insert, json, many, one, scalar, write, type Queryable } from './sql.js';
import { tenancyRows } from '../../rows/tenancy.js';
import { postgresCodec } from '../../row-codec.js';

/** The manifest applies' advisory lock (any constant other than the migrations' MIGRATION_LOCK_KEY). */
const MANIFEST_APPLY_LOCK_KEY = '6005916555199791445';

const role = <R>(r: { role: R }) => r.role;

const { organizationToRow, userFromRow, userToRow, domainFromRow, domainToRow, organizationFromRow } = tenancyRows(postgresCodec);

export function createPostgresTenancyRepo(q: Queryable) {
  return {
    insertOrganization: (org: Organization): Promise<void> => insert(q, 'organizations', organizationToRow(org)),
    renameOrganization: (id: string, name: string): Promise<void> =>
      write(q, 'UPDATE organizations SET name = $1 WHERE id = $2', [name, id]),
    setRolloutFlags: (id: string, flags: Record<string, boolean>): Promise<void> =>
      write(q, 'UPDATE organizations SET rollout_flags = $1 WHERE id = $2', [json(flags), id]),
    organization: (id: string) => one(q, 'SELECT * FROM organizations WHERE id = $1', [id], organizationFromRow),
    /**
     * Holds the organization's row lock until the unit's transaction ends, for a check no unique key backs (domain
     * names are unique per organization, case-insensitively, by the check alone): two such units run one after the other.
     */
    lockOrganization: (id: string): Promise<void> => write(q, 'SELECT 1 FROM organizations WHERE id = $1 FOR NO KEY UPDATE', [id]),
    organizationBySegment: (segment: string) => one(q, 'SELECT * FROM organizations WHERE client_segment = $1', [segment], organizationFromRow),
    insertUser: (user: User): Promise<void> => insert(q, 'users', userToRow(user)),
    updateUser: (user: Pick<User, 'id' | 'name' | 'passwordHash'>): Promise<void> =>
      write(q, 'UPDATE users SET name = $1, password_hash = $2 WHERE id = $3', [user.name, user.passwordHash, user.id]),
    setUserDisabled: (id: string, disabled: boolean): Promise<void> =>
      write(q, 'UPDATE users SET disabled = $1 WHERE id = $2', [disabled, id]),
    setPassword: (id: string, hash: string): Promise<void> =>
      write(q, 'UPDATE users SET password_hash = $1 WHERE id = $2', [hash, id]),
    user: (id: string) => one(q, 'SELECT * FROM users WHERE id = $1', [id], userFromRow),
    // SQLite's email is COLLATE NOCASE; here the unique index is on lower(email), which this lookup uses.
    userByEmail: (email: string) => one(q, 'SELECT * FROM users WHERE lower(email) = lower($1)', [email], userFromRow),
    /**
     * Holds the person's row lock until the unit's transaction ends: two units checking, then adding, this person's
     * membership run one after the other, and the statements after the wait see the first one's rows.
     */
    lockUser: (id: string): Promise<void> => write(q, 'SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [id]),
    setOrgRole: (orgId: string, userId: string, orgRole: OrgRole, now: number): Promise<void> =>
      write(
        q,
        `INSERT INTO org_memberships (org_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (org_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
        [orgId, userId, orgRole, now],
      ),
    removeOrgMember: (orgId: string, userId: string): Promise<void> =>
      write(q, 'DELETE FROM org_memberships WHERE org_id = $1 AND user_id = $2', [orgId, userId]),
    // A disabled membership or a suspended organization holds no role: every permission check refuses at once.
    orgRole: async (orgId: string, userId: string): Promise<OrgRole | null> =>
      (await one(
        q,
        `SELECT m.role FROM org_memberships m JOIN organizations o ON o.id = m.org_id AND o.suspended_at IS NULL
          WHERE m.org_id = $1 AND m.user_id = $2 AND m.disabled_at IS NULL`,
        [orgId, userId],
        role<OrgRole>,
      )) ?? null,
    organizationsOfUser: (userId: string): Promise<OrgMembership[]> =>
      many(q, 'SELECT org_id, role FROM org_memberships WHERE user_id = $1 ORDER BY created_at', [userId], (r: { org_id: string; role: OrgRole }) => ({
        orgId: r.org_id,
        role: r.role,
      })),
    // Byte order (COLLATE "C"), as SQLite's BINARY: the database's own collation may sort "alpha" before "Beta".
    activeOrganizationsOfUser: (userId: string): Promise<ActiveOrgMembership[]> =>
      many(
        q,
        `SELECT m.org_id, m.role, o.name FROM org_memberships m JOIN organizations o ON o.id = m.org_id AND o.suspended_at IS NULL
          WHERE m.user_id = $1 AND m.disabled_at IS NULL ORDER BY o.name COLLATE "C", o.id COLLATE "C"`,
        [userId],
        (r: { org_id: string; role: OrgRole; name: string }) => ({ orgId: r.org_id, role: r.role, name: r.name }),
      ),
    insertDomain: (domain: Domain): Promise<void> => insert(q, 'domains', domainToRow(domain)),
    updateDomain: (id: string, name: string, approvalPolicy: Record<string, unknown>): Promise<void> =>
      write(q, 'UPDATE domains SET name = $1, approval_policy = $2 WHERE id = $3', [name, json(approvalPolicy), id]),
    domain: (id: string) => one(q, 'SELECT * FROM domains WHERE id = $1', [id], domainFromRow),
    domainsOfOrganization: (orgId: string) =>
      many(q, 'SELECT * FROM domains WHERE org_id = $1 ORDER BY created_at, id COLLATE "C"', [orgId], domainFromRow),
    setDomainRole: (domainId: string, userId: string, domainRole: DomainRole, now: number): Promise<void> =>
      write(
        q,
        `INSERT INTO domain_memberships (domain_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (domain_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
        [domainId, userId, domainRole, now],
      ),
    removeDomainMember: (domainId: string, userId: string): Promise<void> =>
      write(q, 'DELETE FROM domain_memberships WHERE domain_id = $1 AND user_id = $2', [domainId, userId]),
    domainRole: async (domainId: string, userId: string): Promise<DomainRole | null> =>
      (await one(q, 'SELECT role FROM domain_memberships WHERE domain_id = $1 AND user_id = $2', [domainId, userId], role<DomainRole>)) ?? null,
    domainRolesOfUser: (userId: string, orgId: string): Promise<DomainMembership[]> =>
      many(
        q,
        `SELECT dm.domain_id, dm.role FROM domain_memberships dm JOIN domains d ON d.id = dm.domain_id
          WHERE dm.user_id = $1 AND d.org_id = $2`,
        [userId, orgId],
        (r: { domain_id: string; role: DomainRole }) => ({ domainId: r.domain_id, role: r.role }),
      ),
    manifestRef: (scope: string, ref: string): Promise<ManifestRef | undefined> =>
      one(q, 'SELECT entity, entity_id FROM manifest_refs WHERE scope = $1 AND ref = $2', [scope, ref], (r: { entity: string; entity_id: string }) => ({
        entity: r.entity,
        entityId: r.entity_id,
      })),
    putManifestRef: (scope: string, ref: string, entity: string, entityId: string): Promise<void> =>
      write(
        q,
        `INSERT INTO manifest_refs (scope, ref, entity, entity_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (scope, ref) DO UPDATE SET entity = EXCLUDED.entity, entity_id = EXCLUDED.entity_id`,
        [scope, ref, entity, entityId],
      ),
    /**
     * Holds the manifest applies' advisory lock until the unit's transaction ends: an apply reads its refs (and users
     * by email, global integrations) then inserts what is missing, and no single row covers all of that, so two
     * applies from two nodes run one after the other and the second sees the first's rows.
     */
    lockManifestApply: (): Promise<void> => write(q, 'SELECT pg_advisory_xact_lock($1::bigint)', [MANIFEST_APPLY_LOCK_KEY]),
    /** True for a database nothing was ever applied to or provisioned in (no organization, user, partner, integration or ref). */
    isEmpty: async (): Promise<boolean> =>
      !(await scalar<boolean>(
        q,
        `SELECT EXISTS (SELECT 1 FROM organizations) OR EXISTS (SELECT 1 FROM users) OR EXISTS (SELECT 1 FROM partners)
           OR EXISTS (SELECT 1 FROM integrations) OR EXISTS (SELECT 1 FROM manifest_refs) AS held`,
        [],
      )),
  };
}
