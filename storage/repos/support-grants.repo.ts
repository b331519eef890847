// Support grants: a customer admin lets its partner read one session, until expiry or revocation.
import type { SqliteDatabase } from '../database.js';

export interface SupportGrantRow {
  id: string;
  org_id: string;
  partner_id: string;
  session_id: string;
  created_by: string | null;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

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
    insert: (row: SupportGrantRow): void => void s.insert.run(row),
    grant: (id: string) => s.byId.get(id) as SupportGrantRow | undefined,
    revoke: (id: string, now: number): boolean => s.revoke.run(now, id).changes > 0,
  };
}

export type SupportGrantsRepo = ReturnType<typeof createSupportGrantsRepo>;
