// Test fixture: an organization, domain, agent and N sessions, so session_events rows satisfy their foreign keys.
import { newId } from '../../../runtime/ids.js';
import type { Store } from '../../../storage/store.js';

/** No sessions repository exists below the turn engine yet, so the rows are written with plain SQL. */
export function seedSessions(store: Store, count: number): string[] {
  const now = Date.UTC(2026, 0, 1);
  const orgId = newId();
  const domainId = newId();
  const automationId = newId();
  const ids = Array.from({ length: count }, () => newId());
  store.transaction(() => {
    store.db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run(orgId, 'Org', now);
    store.db.prepare('INSERT INTO domains (id, org_id, name, created_at) VALUES (?, ?, ?, ?)').run(domainId, orgId, 'Domain', now);
    store.db
      .prepare(`INSERT INTO automations (id, org_id, domain_id, kind, name, created_at, updated_at) VALUES (?, ?, ?, 'agent', 'Agent', ?, ?)`)
      .run(automationId, orgId, domainId, now, now);
    const insert = store.db.prepare(
      `INSERT INTO sessions (id, org_id, domain_id, automation_id, visibility, created_at, updated_at) VALUES (?, ?, ?, ?, 'domain', ?, ?)`,
    );
    for (const id of ids) insert.run(id, orgId, domainId, automationId, now, now);
  });
  return ids;
}
