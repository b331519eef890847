// Management reads and writes on PostgreSQL (storage/repos/management.repo.ts's functions, async): pages, members, domains, connections.
import type { CreatedCursor } from '../../records/paging.js';
import { connectionFromRow } from '../../rows/integrations.js';
import { supportGrantFromRow } from '../../rows/support-grants.js';
import { tenancyRows } from '../../rows/tenancy.js';
import { keysetClause, keysetValues, many, one, scalar, write, type Queryable } from './sql.js';
import { managementRows } from '../../rows/management.js';
import { postgresCodec } from '../../row-codec.js';

const MEMBER_COLUMNS = `m.user_id, u.email, u.name, m.role, m.created_at, m.disabled_at,
  (u.password_hash IS NOT NULL) AS has_password, u.disabled AS user_disabled
  FROM org_memberships m JOIN users u ON u.id = m.user_id`;

const { memberFromRow } = managementRows(postgresCodec);
const { organizationFromRow } = tenancyRows(postgresCodec);

export function createPostgresManagementRepo(q: Queryable) {
  return {
    /** A partner's customers in creation order, `limit` rows after `after`. */
    customers: (partnerId: string, position: CreatedCursor | null, limit: number) =>
      many(q, `SELECT * FROM organizations WHERE partner_id = $1 AND ${keysetClause(2)}`, [partnerId, ...keysetValues(position, limit)], organizationFromRow),
    setSuspended: (orgId: string, at: number | null): Promise<void> => write(q, 'UPDATE organizations SET suspended_at = $1 WHERE id = $2', [at, orgId]),
    members: (orgId: string, position: CreatedCursor | null, limit: number) =>
      many(q, `SELECT ${MEMBER_COLUMNS} WHERE m.org_id = $1 AND ${keysetClause(2, 'asc', { createdAt: 'm.created_at', id: 'm.user_id' })}`, [orgId, ...keysetValues(position, limit)], memberFromRow),
    member: (orgId: string, userId: string) => one(q, `SELECT ${MEMBER_COLUMNS} WHERE m.org_id = $1 AND m.user_id = $2`, [orgId, userId], memberFromRow),
    setMemberDisabled: (orgId: string, userId: string, at: number | null): Promise<void> =>
      write(q, 'UPDATE org_memberships SET disabled_at = $1 WHERE org_id = $2 AND user_id = $3', [at, orgId, userId]),
    activeOwnerCount: async (orgId: string): Promise<number> =>
      (await scalar<number>(q, `SELECT count(*) FROM org_memberships WHERE org_id = $1 AND role = 'owner' AND disabled_at IS NULL`, [orgId]))!,
    renameDomain: (id: string, name: string): Promise<void> => write(q, 'UPDATE domains SET name = $1 WHERE id = $2', [name, id]),
    /** Another domain of the organization already named so (case-insensitive: SQLite's COLLATE NOCASE), or undefined. */
    domainNamed: (orgId: string, name: string) =>
      one(q, 'SELECT id FROM domains WHERE org_id = $1 AND lower(name) = lower($2)', [orgId, name], (r: { id: string }) => r.id),
    connection: (id: string) => one(q, 'SELECT * FROM connections WHERE id = $1', [id], connectionFromRow),
    /** Replaces the sealed material (bytea; never in clear) and records when. */
    rotateConnection: (id: string, sealed: Buffer, at: number): Promise<void> =>
      write(q, 'UPDATE connections SET secret_sealed = $1, rotated_at = $2 WHERE id = $3', [sealed, at, id]),
    deleteConnection: (id: string): Promise<void> => write(q, 'DELETE FROM connections WHERE id = $1', [id]),
    supportGrantsOf: (orgId: string, partnerId: string, position: CreatedCursor | null, limit: number) =>
      many(
        q,
        `SELECT * FROM support_grants WHERE org_id = $1 AND partner_id = $2 AND ${keysetClause(3)}`,
        [orgId, partnerId, ...keysetValues(position, limit)],
        supportGrantFromRow,
      ),
  };
}
