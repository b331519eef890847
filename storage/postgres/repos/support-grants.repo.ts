// Support grants on PostgreSQL (storage/repos/support-grants.repo.ts's functions, async).
import type { SupportGrant } from '../../records/support-grants.js';
import { insert, one, run, type Queryable } from './sql.js';
import { supportGrantFromRow, supportGrantToRow as toRow } from '../../rows/support-grants.js';

export function createPostgresSupportGrantsRepo(q: Queryable) {
  return {
    insert: (grant: SupportGrant): Promise<void> => insert(q, 'support_grants', toRow(grant)),
    grant: (id: string) => one(q, 'SELECT * FROM support_grants WHERE id = $1', [id], supportGrantFromRow),
    revoke: async (id: string, now: number): Promise<boolean> =>
      (await run(q, 'UPDATE support_grants SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now, id])) > 0,
  };
}
