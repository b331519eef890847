// Baseline: the floor for a durable fire. A bare uWS handler writes the rows one Switchyard fire writes, through raw
// better-sqlite3 with the same schema, pragmas (WAL, synchronous=FULL) and group commit, and answers after the commit.
/*
 * Rows per fire with two started subscribers, as the real service eventually writes them: trigger_runs 1 (subscriber
 * results and, for a keyed fire, the claim inline), sessions 2, executions 2, messages 2; a keyed repeat reads the
 * claim and answers its stored body. The service commits only the run row before its 202 and writes the other six
 * in bulk after (runtime/execution/materializer.ts); this floor writes all seven before answering. (Before issue 12
 * a fire wrote 14 rows: subscriber_results 2, session_events 2, actor_snapshots 1, a claim-expiry timer and a
 * separate claim row more.)
 * No authentication, no validation beyond JSON.parse, no planning: the gap to this is Switchyard's overhead.
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type UWS from 'uWebSockets.js';
import { migrate } from '../../storage/migrate.js';
import { announce, exitWithParent, requireNativeUws } from '../child-lifecycle.js';

const uWS = requireNativeUws('baseline-fire-sqlite');

const dir = mkdtempSync(join(tmpdir(), 'switchyard-bench-floor-'));
const db = new Database(join(dir, 'floor.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('foreign_keys = ON');
db.pragma('secure_delete = ON');
db.pragma('wal_autocheckpoint = 4000');
migrate(db);

const T = Date.now();
const ids = { org: randomUUID(), domain: randomUUID(), agent: randomUUID(), flow: randomUUID(), trigger: randomUUID() };
db.prepare("INSERT INTO organizations (id, name, created_at) VALUES (?, 'Floor', ?)").run(ids.org, T);
db.prepare("INSERT INTO domains (id, org_id, name, created_at) VALUES (?, ?, 'Sales', ?)").run(ids.domain, ids.org, T);
const automation = db.prepare('INSERT INTO automations (id, org_id, domain_id, kind, name, published_revision, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?)');
automation.run(ids.agent, ids.org, ids.domain, 'agent', 'Contact lookup', T, T);
automation.run(ids.flow, ids.org, ids.domain, 'flow', 'Enrich contact', T, T);
db.prepare("INSERT INTO triggers (id, org_id, domain_id, type, name, created_at) VALUES (?, ?, ?, 'api', 'New lead', ?)").run(ids.trigger, ids.org, ids.domain, T);

const s = {
  run: db.prepare(
    `INSERT INTO trigger_runs (id, trigger_id, org_id, source, fired_by, outcome, idempotency_key, created_at, results, claim_key, claim_fingerprint, claim_response, claim_expires_at)
     VALUES (?, ?, ?, 'api', NULL, 'succeeded', ?, ?, ?, ?, ?, ?, ?)`,
  ),
  session: db.prepare("INSERT INTO sessions (id, org_id, domain_id, automation_id, revision, visibility, origin, trigger_run_id, created_at, updated_at) VALUES (?, ?, ?, ?, 1, 'domain', 'trigger', ?, ?, ?)"),
  execution: db.prepare("INSERT INTO executions (id, session_id, position, status, input, created_at, updated_at, revision, entry) VALUES (?, ?, 1, 'queued', ?, ?, ?, 1, 'open')"),
  message: db.prepare("INSERT INTO messages (id, session_id, execution_id, role, content, created_at, position) VALUES (?, ?, ?, 'user', ?, ?, 1)"),
  claimGet: db.prepare('SELECT claim_response FROM trigger_runs WHERE org_id = ? AND claim_key = ?').pluck(),
};

interface Pending {
  res: UWS.HttpResponse;
  aborted: boolean;
  input: unknown;
  key: string | null;
  body?: string;
}

function writeFire(p: Pending): string {
  const now = Date.now();
  const runId = randomUUID();
  const sessions = [ids.agent, ids.flow].map((automationId) => ({ automationId, sessionId: randomUUID() }));
  const body = JSON.stringify({ runId, sessions });
  const results = sessions.map(({ automationId, sessionId }, position) => ({ automationId, position, status: 'started', code: null, reason: null, sessionId }));
  const claim = p.key === null ? [null, null, null, null] : [p.key, Buffer.alloc(32), body, now + 86_400_000];
  s.run.run(runId, ids.trigger, ids.org, p.key, now, JSON.stringify(results), ...claim);
  sessions.forEach(({ automationId, sessionId }) => {
    const executionId = randomUUID();
    s.session.run(sessionId, ids.org, ids.domain, automationId, runId, now, now);
    s.execution.run(executionId, sessionId, JSON.stringify(p.input ?? {}), now, now);
    s.message.run(randomUUID(), sessionId, executionId, `The trigger "New lead" fired with this input:\n- id: c-1`, now);
  });
  return body;
}

let queue: Pending[] = [];
let scheduled = false;
// One transaction per event-loop turn (group commit), each request answered after the commit.
const commit = db.transaction((batch: Pending[]) => {
  for (const p of batch) {
    const stored = p.key === null ? undefined : (s.claimGet.get(ids.org, p.key) as string | undefined);
    p.body = stored ?? writeFire(p);
  }
});
function flush(): void {
  scheduled = false;
  const batch = queue;
  queue = [];
  commit.immediate(batch);
  for (const p of batch) {
    if (p.aborted) continue;
    p.res.cork(() => p.res.writeStatus('202 Accepted').writeHeader('content-type', 'application/json; charset=utf-8').end(p.body!));
  }
}

const app = uWS.App();
app.post('/*', (res, req) => {
  const key = req.getHeader('idempotency-key') || null;
  const pending: Pending = { res, aborted: false, input: null, key };
  res.onAborted(() => (pending.aborted = true));
  const chunks: Buffer[] = [];
  res.onData((chunk, isLast) => {
    chunks.push(Buffer.from(chunk.slice(0)));
    if (!isLast) return;
    pending.input = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input?: unknown }).input;
    // A replay is a read: answer it without waiting for a commit, as Switchyard does.
    const stored = key === null ? undefined : (s.claimGet.get(ids.org, key) as string | undefined);
    if (stored !== undefined) {
      if (!pending.aborted) res.cork(() => res.writeStatus('202 Accepted').writeHeader('content-type', 'application/json; charset=utf-8').end(stored));
      return;
    }
    queue.push(pending);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
});

app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) {
    process.stderr.write('baseline-fire-sqlite: could not listen on 127.0.0.1\n');
    process.exit(1);
  }
  exitWithParent(() => {
    uWS.us_listen_socket_close(socket);
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  announce({ port: uWS.us_socket_local_port(socket as unknown as UWS.us_socket), adapter: 'uws', facts: { durability: 'full' } });
});
