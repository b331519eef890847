// Support grants: a customer admin lets its partner read one session, until expiry or revocation.
import type { SqliteDatabase } from '../database.js';
import type { SupportGrant } from '../records/support-grants.js';
import { mapOptional } from '../row-mapping.js';
import { supportGrantFromRow, supportGrantToRow as toRow } from '../rows/support-grants.js';

export function createSupportGrantsRepo(db: SqliteDatabase) {
  const s = {
    insert: db.prepare(
      `INSERT INTO support_grants (id, org_id, partner_id, session_id, created_by, created_at, expires_at, revoked_at)
       VALUES (@id, @org_id, @partner_id, @session_id, @created_by, @created_at, @expires_at, @revoked_at)`,
    ),
    byId: db.prepare('SELECT * FROM support_grants WHERE id = ?'),
    revoke: db.prepare('UPDATE support_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
  };
  return {
    insert: (grant: SupportGrant): void => void s.insert.run(toRow(grant)),
    grant: (id: string) => mapOptional(s.byId.get(id), supportGrantFromRow),
    revoke: (id: string, now: number): boolean => s.revoke.run(now, id).changes > 0,
  };
}

export type SupportGrantsRepo = ReturnType<typeof createSupportGrantsRepo>;
