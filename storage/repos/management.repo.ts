// Management reads and writes (issue 13 item 6): customer pages and suspension, members, domains, connections.
import type { SqliteDatabase } from '../database.js';
import { mapOptional } from '../row-mapping.js';
import { tenancyRows } from '../rows/tenancy.js';
import { connectionFromRow } from '../rows/integrations.js';
import { supportGrantFromRow } from '../rows/support-grants.js';
import { managementRows, type MemberRow } from '../rows/management.js';
import { sqliteCodec } from '../row-codec.js';
import type { CreatedCursor } from '../records/paging.js';
import { keysetAfter, keysetAfterParams } from './keyset.js';

const { memberFromRow } = managementRows(sqliteCodec);
const { organizationFromRow } = tenancyRows(sqliteCodec);

export function createManagementRepo(db: SqliteDatabase) {
  const s = {
    customers: db.prepare(
      `SELECT * FROM organizations WHERE partner_id = @partner
         AND ${keysetAfter()}`,
    ),
    setSuspended: db.prepare('UPDATE organizations SET suspended_at = ? WHERE id = ?'),
    members: db.prepare(
      `SELECT m.user_id, u.email, u.name, m.role, m.created_at, m.disabled_at,
              (u.password_hash IS NOT NULL) AS has_password, u.disabled AS user_disabled
         FROM org_memberships m JOIN users u ON u.id = m.user_id
        WHERE m.org_id = @org AND ${keysetAfter({ createdAt: 'm.created_at', id: 'm.user_id' })}`,
    ),
    member: db.prepare(
      `SELECT m.user_id, u.email, u.name, m.role, m.created_at, m.disabled_at,
              (u.password_hash IS NOT NULL) AS has_password, u.disabled AS user_disabled
         FROM org_memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = ? AND m.user_id = ?`,
    ),
    setMemberDisabled: db.prepare('UPDATE org_memberships SET disabled_at = ? WHERE org_id = ? AND user_id = ?'),
    activeOwners: db.prepare(`SELECT COUNT(*) AS n FROM org_memberships WHERE org_id = ? AND role = 'owner' AND disabled_at IS NULL`),
    renameDomain: db.prepare('UPDATE domains SET name = ? WHERE id = ?'),
    domainNamed: db.prepare('SELECT id FROM domains WHERE org_id = ? AND name = ? COLLATE NOCASE'),
    rotateConnection: db.prepare('UPDATE connections SET secret_sealed = ?, rotated_at = ? WHERE id = ?'),
    deleteConnection: db.prepare('DELETE FROM connections WHERE id = ?'),
    connection: db.prepare('SELECT * FROM connections WHERE id = ?'),
    grantsOfOrg: db.prepare(
      `SELECT * FROM support_grants WHERE org_id = @org AND partner_id = @partner
         AND ${keysetAfter()}`,
    ),
  };
  return {
    /** A partner's customers in creation order, `limit` rows after `after`. */
    customers: (partnerId: string, after: CreatedCursor | null, limit: number) =>
      (s.customers.all({ partner: partnerId, ...keysetAfterParams(after, limit) }) as Parameters<typeof organizationFromRow>[0][]).map(organizationFromRow),
    setSuspended: (orgId: string, at: number | null): void => void s.setSuspended.run(at, orgId),
    members: (orgId: string, after: CreatedCursor | null, limit: number) =>
      (s.members.all({ org: orgId, ...keysetAfterParams(after, limit) }) as MemberRow[]).map(memberFromRow),
    member: (orgId: string, userId: string) => mapOptional(s.member.get(orgId, userId), memberFromRow),
    setMemberDisabled: (orgId: string, userId: string, at: number | null): void => void s.setMemberDisabled.run(at, orgId, userId),
    activeOwnerCount: (orgId: string): number => (s.activeOwners.get(orgId) as { n: number }).n,
    renameDomain: (id: string, name: string): void => void s.renameDomain.run(name, id),
    /** Another domain of the organization already named so (case-insensitive), or undefined. */
    domainNamed: (orgId: string, name: string) => (s.domainNamed.get(orgId, name) as { id: string } | undefined)?.id,
    connection: (id: string) => mapOptional(s.connection.get(id), connectionFromRow),
    rotateConnection: (id: string, sealed: Buffer, at: number): void => void s.rotateConnection.run(sealed, at, id),
    deleteConnection: (id: string): void => void s.deleteConnection.run(id),
    supportGrantsOf: (orgId: string, partnerId: string, after: CreatedCursor | null, limit: number) =>
      (s.grantsOfOrg.all({ org: orgId, partner: partnerId, ...keysetAfterParams(after, limit) }) as Parameters<typeof supportGrantFromRow>[0][]).map(supportGrantFromRow),
  };
}

export type ManagementRepo = ReturnType<typeof createManagementRepo>;
