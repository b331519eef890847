// Organizations, users, memberships and domains.
import type { SqliteDatabase } from '../database.js';
import { mapOptional } from '../row-mapping.js';
import type { ActiveOrgMembership, Domain, DomainMembership, DomainRole, ManifestRef, Organization, OrgMembership, OrgRole, User } from '../records/tenancy.js';
import { tenancyRows, type DomainRow } from '../rows/tenancy.js';
import { sqliteCodec } from '../row-codec.js';

export type { OrgRole, DomainRole } from '../records/tenancy.js';

const { organizationToRow, userFromRow, userToRow, domainFromRow, domainToRow, organizationFromRow } = tenancyRows(sqliteCodec);

export function createTenancyRepo(db: SqliteDatabase) {
  const s = {
    insertOrg: db.prepare(
      `INSERT INTO organizations (id, name, partner_id, client_segment, direct_login_disabled, rollout_flags, created_at)
       VALUES (@id, @name, @partner_id, @client_segment, @direct_login_disabled, @rollout_flags, @created_at)`,
    ),
    updateOrgName: db.prepare('UPDATE organizations SET name = ? WHERE id = ?'),
    setRolloutFlags: db.prepare('UPDATE organizations SET rollout_flags = ? WHERE id = ?'),
    orgById: db.prepare('SELECT * FROM organizations WHERE id = ?'),
    orgBySegment: db.prepare('SELECT * FROM organizations WHERE client_segment = ?'),
    insertUser: db.prepare(
      `INSERT INTO users (id, email, name, password_hash, disabled, created_at)
       VALUES (@id, @email, @name, @password_hash, @disabled, @created_at)`,
    ),
    updateUser: db.prepare('UPDATE users SET name = @name, password_hash = @password_hash WHERE id = @id'),
    setUserDisabled: db.prepare('UPDATE users SET disabled = ? WHERE id = ?'),
    setPassword: db.prepare('UPDATE users SET password_hash = ? WHERE id = ?'),
    userById: db.prepare('SELECT * FROM users WHERE id = ?'),
    userByEmail: db.prepare('SELECT * FROM users WHERE email = ?'),
    upsertOrgMember: db.prepare(
      `INSERT INTO org_memberships (org_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (org_id, user_id) DO UPDATE SET role = excluded.role`,
    ),
    removeOrgMember: db.prepare('DELETE FROM org_memberships WHERE org_id = ? AND user_id = ?'),
    // A disabled membership or a suspended organization holds no role: every permission check refuses at once.
    orgRole: db.prepare(
      `SELECT m.role FROM org_memberships m JOIN organizations o ON o.id = m.org_id AND o.suspended_at IS NULL
        WHERE m.org_id = ? AND m.user_id = ? AND m.disabled_at IS NULL`,
    ),
    orgsOfUser: db.prepare('SELECT org_id, role FROM org_memberships WHERE user_id = ? ORDER BY created_at'),
    // The organizations a person can work in now: enabled memberships of organizations that are not suspended.
    activeOrgsOfUser: db.prepare(
      `SELECT m.org_id, m.role, o.name FROM org_memberships m JOIN organizations o ON o.id = m.org_id AND o.suspended_at IS NULL
        WHERE m.user_id = ? AND m.disabled_at IS NULL ORDER BY o.name, o.id`,
    ),
    insertDomain: db.prepare(
      'INSERT INTO domains (id, org_id, name, approval_policy, created_at) VALUES (@id, @org_id, @name, @approval_policy, @created_at)',
    ),
    updateDomain: db.prepare('UPDATE domains SET name = ?, approval_policy = ? WHERE id = ?'),
    domainById: db.prepare('SELECT * FROM domains WHERE id = ?'),
    domainsOfOrg: db.prepare('SELECT * FROM domains WHERE org_id = ? ORDER BY created_at, id'),
    upsertDomainMember: db.prepare(
      `INSERT INTO domain_memberships (domain_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (domain_id, user_id) DO UPDATE SET role = excluded.role`,
    ),
    removeDomainMember: db.prepare('DELETE FROM domain_memberships WHERE domain_id = ? AND user_id = ?'),
    domainRole: db.prepare('SELECT role FROM domain_memberships WHERE domain_id = ? AND user_id = ?'),
    domainRolesOfUser: db.prepare(
      `SELECT dm.domain_id, dm.role FROM domain_memberships dm JOIN domains d ON d.id = dm.domain_id
       WHERE dm.user_id = ? AND d.org_id = ?`,
    ),
    refGet: db.prepare('SELECT entity, entity_id FROM manifest_refs WHERE scope = ? AND ref = ?'),
    refPut: db.prepare(
      `INSERT INTO manifest_refs (scope, ref, entity, entity_id) VALUES (?, ?, ?, ?)
       ON CONFLICT (scope, ref) DO UPDATE SET entity = excluded.entity, entity_id = excluded.entity_id`,
    ),
    // Everything a workspace manifest or the partner API creates first; any of it means someone's data is here.
    anyWorkspace: db.prepare(
      `SELECT EXISTS (SELECT 1 FROM organizations) OR EXISTS (SELECT 1 FROM users) OR EXISTS (SELECT 1 FROM partners)
         OR EXISTS (SELECT 1 FROM integrations) OR EXISTS (SELECT 1 FROM manifest_refs) AS held`,
    ),
  };

  return {
    insertOrganization: (org: Organization): void => void s.insertOrg.run(organizationToRow(org)),
    renameOrganization: (id: string, name: string): void => void s.updateOrgName.run(name, id),
    /** `flags` is the whole object (e.g. `{ eventTriggers: false }`); it replaces the stored one. */
    setRolloutFlags: (id: string, flags: Record<string, boolean>): void => void s.setRolloutFlags.run(JSON.stringify(flags), id),
    organization: (id: string) => mapOptional(s.orgById.get(id), organizationFromRow),
    /** Orders a unit's checks across the organization (a free domain name) against other writers: SQLite's one writer already does. */
    lockOrganization: (_id: string): void => {},
    organizationBySegment: (segment: string) => mapOptional(s.orgBySegment.get(segment), organizationFromRow),
    insertUser: (user: User): void => void s.insertUser.run(userToRow(user)),
    updateUser: (user: Pick<User, 'id' | 'name' | 'passwordHash'>): void =>
      void s.updateUser.run({ id: user.id, name: user.name, password_hash: user.passwordHash }),
    setUserDisabled: (id: string, disabled: boolean): void => void s.setUserDisabled.run(disabled ? 1 : 0, id),
    setPassword: (id: string, hash: string): void => void s.setPassword.run(hash, id),
    user: (id: string) => mapOptional(s.userById.get(id), userFromRow),
    userByEmail: (email: string) => mapOptional(s.userByEmail.get(email), userFromRow),
    /** Orders a unit's checks on this person against other writers: SQLite's one writer already does. */
    lockUser: (_id: string): void => {},
    setOrgRole: (orgId: string, userId: string, role: OrgRole, now: number): void => void s.upsertOrgMember.run(orgId, userId, role, now),
    removeOrgMember: (orgId: string, userId: string): void => void s.removeOrgMember.run(orgId, userId),
    orgRole: (orgId: string, userId: string) => (s.orgRole.get(orgId, userId) as { role: OrgRole } | undefined)?.role ?? null,
    organizationsOfUser: (userId: string): OrgMembership[] =>
      (s.orgsOfUser.all(userId) as Array<{ org_id: string; role: OrgRole }>).map((r) => ({ orgId: r.org_id, role: r.role })),
    activeOrganizationsOfUser: (userId: string): ActiveOrgMembership[] =>
      (s.activeOrgsOfUser.all(userId) as Array<{ org_id: string; role: OrgRole; name: string }>).map((r) => ({ orgId: r.org_id, role: r.role, name: r.name })),
    insertDomain: (domain: Domain): void => void s.insertDomain.run(domainToRow(domain)),
    updateDomain: (id: string, name: string, approvalPolicy: Record<string, unknown>): void =>
      void s.updateDomain.run(name, JSON.stringify(approvalPolicy), id),
    domain: (id: string) => mapOptional(s.domainById.get(id), domainFromRow),
    domainsOfOrganization: (orgId: string) => (s.domainsOfOrg.all(orgId) as DomainRow[]).map(domainFromRow),
    setDomainRole: (domainId: string, userId: string, role: DomainRole, now: number): void =>
      void s.upsertDomainMember.run(domainId, userId, role, now),
    removeDomainMember: (domainId: string, userId: string): void => void s.removeDomainMember.run(domainId, userId),
    domainRole: (domainId: string, userId: string) =>
      (s.domainRole.get(domainId, userId) as { role: DomainRole } | undefined)?.role ?? null,
    domainRolesOfUser: (userId: string, orgId: string): DomainMembership[] =>
      (s.domainRolesOfUser.all(userId, orgId) as Array<{ domain_id: string; role: DomainRole }>).map((r) => ({ domainId: r.domain_id, role: r.role })),
    manifestRef: (scope: string, ref: string): ManifestRef | undefined => {
      const row = s.refGet.get(scope, ref) as { entity: string; entity_id: string } | undefined;
      return row === undefined ? undefined : { entity: row.entity, entityId: row.entity_id };
    },
    putManifestRef: (scope: string, ref: string, entity: string, entityId: string): void => void s.refPut.run(scope, ref, entity, entityId),
    /** Orders manifest applies (each reads its refs, then inserts what is missing): SQLite's one writer already does. */
    lockManifestApply: (): void => {},
    /** True for a database nothing was ever applied to or provisioned in (no organization, user, partner, integration or ref). */
    isEmpty: (): boolean => (s.anyWorkspace.get() as { held: number }).held === 0,
  };
}

export type TenancyRepo = ReturnType<typeof createTenancyRepo>;
