// Seeds N completed keyed fires (claims, Run history, sessions, executions) so a bench can show accept throughput
// does not decay with history (issue 12 item 4: 1,000,000 stored fires within 10 % of an empty database).
import { newId } from '../runtime/ids.js';
import type { Service } from '../index.js';

/** Rows go in transactions of this many fires: large enough to amortize commits, small enough to keep the WAL bounded. */
const CHUNK = 20_000;

export function seedFireHistory(service: Service, refs: Record<string, string>, fires: number): { seconds: number; rows: number } {
  const started = performance.now();
  const { db } = service.store;
  const trigger = service.store.repos.triggers.trigger(refs['new-lead']!);
  if (trigger === undefined) throw new Error('the workspace has no new-lead trigger');
  const subscribers = service.store.repos.triggers.subscribers(trigger.id);
  const automations = subscribers.map((s) => service.store.repos.automations.automation(s.automation_id)!);
  const userId = refs.bob!;
  // The claim lives on its run (claim_* columns, unique index trigger_runs_claim).
  const run = db.prepare(
    `INSERT INTO trigger_runs (id, trigger_id, org_id, source, fired_by, outcome, idempotency_key, created_at, results,
       claim_key, claim_fingerprint, claim_response, claim_expires_at)
     VALUES (?, ?, ?, 'api', ?, 'succeeded', ?, ?, ?, ?, randomblob(32), '{}', ?)`,
  );
  const session = db.prepare(
    `INSERT INTO sessions (id, org_id, domain_id, automation_id, revision, visibility, created_by, origin, trigger_run_id, status, created_at, updated_at)
     VALUES (?, ?, ?, ?, 1, 'domain', ?, 'trigger', ?, 'active', ?, ?)`,
  );
  const execution = db.prepare(
    `INSERT INTO executions (id, session_id, position, status, created_by, created_at, updated_at, settled_at)
     VALUES (?, ?, 1, 'completed', ?, ?, ?, ?)`,
  );
  // The claims are recent (not expired): a day of traffic, the worst case for the claim table and its index.
  const now = Date.now();
  let rows = 0;
  const chunk = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const at = now - (fires - i);
      const runId = newId();
      const sessionIds = automations.map(() => newId());
      const results = automations.map((a, position) => ({ automationId: a.id, position, status: 'started', code: null, reason: null, sessionId: sessionIds[position] }));
      run.run(runId, trigger.id, trigger.org_id, userId, `seed-${i}`, at, JSON.stringify(results), `seed-${i}`, at + 86_400_000);
      automations.forEach((automation, position) => {
        session.run(sessionIds[position], trigger.org_id, automation.domain_id, automation.id, userId, runId, at, at);
        execution.run(newId(), sessionIds[position], userId, at, at, at);
      });
      rows += 1 + 2 * automations.length;
    }
  });
  for (let from = 0; from < fires; from += CHUNK) chunk(from, Math.min(fires, from + CHUNK));
  db.exec('ANALYZE');
  service.store.checkpoint();
  return { seconds: (performance.now() - started) / 1000, rows };
}
