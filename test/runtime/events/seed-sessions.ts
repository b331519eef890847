// Test fixture: an organization, domain, agent and N sessions, so session_events rows satisfy their foreign keys.
import { newId } from '../../../runtime/ids.js';
import type { SqlReader } from '../../helpers/sql.js';

/** Plain portable SQL, on either engine: the rows a session needs, without the turn engine's starter. */
export async function seedSessions(sql: SqlReader, count: number): Promise<string[]> {
  const now = Date.UTC(2026, 0, 1);
  const orgId = newId();
  const domainId = newId();
  const automationId = newId();
  const ids = Array.from({ length: count }, () => newId());
  await sql.run('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)', orgId, 'Org', now);
  await sql.run('INSERT INTO domains (id, org_id, name, created_at) VALUES (?, ?, ?, ?)', domainId, orgId, 'Domain', now);
  await sql.run(`INSERT INTO automations (id, org_id, domain_id, kind, name, created_at, updated_at) VALUES (?, ?, ?, 'agent', 'Agent', ?, ?)`, automationId, orgId, domainId, now, now);
  for (const id of ids) {
    await sql.run(`INSERT INTO sessions (id, org_id, domain_id, automation_id, visibility, created_at, updated_at) VALUES (?, ?, ?, ?, 'domain', ?, ?)`, id, orgId, domainId, automationId, now, now);
  }
  return ids;
}
