// Worker mappings: a partner's named worker (partnerSubject) vouched into a customer organization as one person.
import type { SqliteDatabase } from '../database.js';
import type { WorkerDomainRole, WorkerMapping } from '../records/workers.js';
import { mapOptional } from '../row-mapping.js';
import { workerRows, type WorkerMappingRow } from '../rows/workers.js';
import { sqliteCodec } from '../row-codec.js';

const { fromRow, toRow } = workerRows(sqliteCodec);

export function createWorkersRepo(db: SqliteDatabase) {
  const s = {
    insert: db.prepare(
      `INSERT INTO worker_mappings (id, partner_id, org_id, partner_subject, user_id, domain_roles, provisioned_user, created_at, updated_at, revoked_at)
       VALUES (@id, @partner_id, @org_id, @partner_subject, @user_id, @domain_roles, @provisioned_user, @created_at, @updated_at, @revoked_at)`,
    ),
    setRoles: db.prepare('UPDATE worker_mappings SET domain_roles = ?, updated_at = ? WHERE id = ? AND revoked_at IS NULL'),
    revoke: db.prepare('UPDATE worker_mappings SET revoked_at = ?, updated_at = ? WHERE id = ? AND revoked_at IS NULL'),
    byId: db.prepare('SELECT * FROM worker_mappings WHERE id = ?'),
    activeBySubject: db.prepare('SELECT * FROM worker_mappings WHERE org_id = ? AND partner_subject = ? AND revoked_at IS NULL'),
    activeOfOrg: db.prepare('SELECT * FROM worker_mappings WHERE org_id = ? AND revoked_at IS NULL ORDER BY created_at, id'),
    activeOfUser: db.prepare('SELECT * FROM worker_mappings WHERE org_id = ? AND user_id = ? AND revoked_at IS NULL'),
    latestBySubject: db.prepare('SELECT * FROM worker_mappings WHERE org_id = ? AND partner_subject = ? ORDER BY created_at DESC, id DESC LIMIT 1'),
  };
  return {
    insert: (mapping: WorkerMapping): void => void s.insert.run(toRow(mapping)),
    setDomainRoles: (id: string, domainRoles: readonly WorkerDomainRole[], now: number): boolean =>
      s.setRoles.run(JSON.stringify(domainRoles), now, id).changes > 0,
    revoke: (id: string, now: number): boolean => s.revoke.run(now, now, id).changes > 0,
    mapping: (id: string) => mapOptional(s.byId.get(id), fromRow),
    activeBySubject: (orgId: string, partnerSubject: string) => mapOptional(s.activeBySubject.get(orgId, partnerSubject), fromRow),
    activeOfOrganization: (orgId: string) => (s.activeOfOrg.all(orgId) as WorkerMappingRow[]).map(fromRow),
    activeOfUser: (orgId: string, userId: string) => (s.activeOfUser.all(orgId, userId) as WorkerMappingRow[]).map(fromRow),
    /** The subject's newest mapping, revoked or not (a re-vouched subject is the same person again). */
    latestBySubject: (orgId: string, partnerSubject: string) => mapOptional(s.latestBySubject.get(orgId, partnerSubject), fromRow),
  };
}

export type WorkersRepo = ReturnType<typeof createWorkersRepo>;
