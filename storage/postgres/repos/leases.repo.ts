// Partner leases (`svt_`) on PostgreSQL (storage/repos/leases.repo.ts's functions, async); not the coordination leases of ../leases.ts.
import type { Lease } from '../../records/leases.js';
import { insert, one, run, type Queryable } from './sql.js';
import { leaseFromRow as fromRow, leaseToRow as toRow } from '../../rows/leases.js';

export function createPostgresLeasesRepo(q: Queryable) {
  return {
    insert: (lease: Lease): Promise<void> => insert(q, 'leases', toRow(lease)),
    byHash: (hash: Buffer) => one(q, 'SELECT * FROM leases WHERE token_hash = $1', [hash], fromRow),
    /** Deletes leases that expired at or before `now`; returns how many. */
    sweep: (now: number): Promise<number> => run(q, 'DELETE FROM leases WHERE expires_at <= $1', [now]),
    /** Ends every live lease minted for a worker mapping (the mapping was revoked). */
    endLeasesOfMapping: (mappingId: string, now: number): Promise<number> =>
      run(q, 'UPDATE leases SET expires_at = $1 WHERE mapping_id = $2 AND expires_at > $1', [now, mappingId]),
  };
}
