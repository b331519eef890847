// Worker mappings on PostgreSQL (storage/repos/workers.repo.ts's functions, async).
import type { WorkerDomainRole, WorkerMapping } from '../../records/workers.js';
import { insert, json, many, one, run, type Queryable } from './sql.js';
import { workerRows } from '../../rows/workers.js';
import { postgresCodec } from '../../row-codec.js';

const { fromRow, toRow } = workerRows(postgresCodec);

export function createPostgresWorkersRepo(q: Queryable) {
  return {
    /** One active mapping per (organization, subject): a second one is a ConstraintViolationError (worker_mappings_subject). */
    insert: (mapping: WorkerMapping): Promise<void> => insert(q, 'worker_mappings', toRow(mapping)),
    setDomainRoles: async (id: string, domainRoles: readonly WorkerDomainRole[], now: number): Promise<boolean> =>
      (await run(q, 'UPDATE worker_mappings SET domain_roles = $1, updated_at = $2 WHERE id = $3 AND revoked_at IS NULL', [json(domainRoles), now, id])) > 0,
    revoke: async (id: string, now: number): Promise<boolean> =>
      (await run(q, 'UPDATE worker_mappings SET revoked_at = $1, updated_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now, id])) > 0,
    mapping: (id: string) => one(q, 'SELECT * FROM worker_mappings WHERE id = $1', [id], fromRow),
    activeBySubject: (orgId: string, partnerSubject: string) =>
      one(q, 'SELECT * FROM worker_mappings WHERE org_id = $1 AND partner_subject = $2 AND revoked_at IS NULL', [orgId, partnerSubject], fromRow),
    activeOfOrganization: (orgId: string) =>
      many(q, 'SELECT * FROM worker_mappings WHERE org_id = $1 AND revoked_at IS NULL ORDER BY created_at, id COLLATE "C"', [orgId], fromRow),
    activeOfUser: (orgId: string, userId: string) =>
      many(q, 'SELECT * FROM worker_mappings WHERE org_id = $1 AND user_id = $2 AND revoked_at IS NULL', [orgId, userId], fromRow),
    /** The subject's newest mapping, revoked or not (a re-vouched subject is the same person again). */
    latestBySubject: (orgId: string, partnerSubject: string) =>
      one(
        q,
        'SELECT * FROM worker_mappings WHERE org_id = $1 AND partner_subject = $2 ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT 1',
        [orgId, partnerSubject],
        fromRow,
      ),
  };
}
