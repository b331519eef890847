// CPU per execution outside tap (tap's async-hook-domain tracks every promise and inflates the in-test figure):
// keyed fires accepted with the dispatcher held, then run to completion while process.cpuUsage() is read.
// Usage: node --import tsx bench/turn-cost.ts [--mode agent|flow|mix] [--fires 200] [--rounds 7] [--profile FILE]
// Modes: agent = trigger with only `lookup` (one agent turn per fire), flow = `flow-only` (enrich), mix = `new-lead`.
// Prints each round's µs per execution and the median; with --profile, a CPU profile of the last round.
import { parseArgs } from 'node:util';
import { applyManifest } from '../runtime/manifest/apply.js';
import { fireWorkspace } from '../test/helpers/fire-workspace.js';
import { bearer, call } from '../test/helpers/http.js';
import { startTestServer } from '../test/helpers/server.js';
import { startRecordingUpstream } from '../test/runtime/tools/recording-upstream.js';
import { crmResponder } from '../test/http/sessions/conversation-fixture.js';
import { UNBOUNDED_QUEUE } from './held-work.js';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'mix' },
    fires: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '7' },
    profile: { type: 'string' },
    'same-input': { type: 'boolean', default: false },
    /** Time every better-sqlite3 statement (hrtime around run/get/all/iterate) and print the costliest per execution. */
    'sql-time': { type: 'boolean', default: false },
    /** A database file instead of :memory: (to inspect the rows afterwards, or to include the file's I/O). */
    db: { type: 'string' },
  },
});
const mode = values.mode as 'agent' | 'flow' | 'mix';
const FIRES = Number(values.fires);
const ROUNDS = Number(values.rounds);
const triggerRef = { agent: 'agent-only', flow: 'flow-only', mix: 'new-lead' }[mode];
const perFire = mode === 'mix' ? 2 : 1;

const sqlTime = new Map<unknown, { n: number; ns: bigint }>();
let timing = false;
if (values['sql-time']) {
  const Database = (await import('better-sqlite3')).default;
  const prototype = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = prototype[method]!;
    prototype[method] = function timed(this: unknown, ...args: unknown[]) {
      if (!timing) return original.apply(this, args);
      const t0 = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        const entry = sqlTime.get(this) ?? { n: 0, ns: 0n };
        entry.n += 1;
        entry.ns += process.hrtime.bigint() - t0;
        sqlTime.set(this, entry);
      }
    };
  }
}

const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => void teardowns.push(fn) };
const upstream = await startRecordingUpstream();
t.teardown(() => upstream.close());
upstream.respond(crmResponder);
const server = await startTestServer(t, { ...(values.db ? { dbPath: values.db } : {}), config: UNBOUNDED_QUEUE });
const manifest = fireWorkspace({ crmBaseUrl: upstream.baseUrl });
manifest.organizations[0].triggers.push({ ref: 'agent-only', type: 'api', domain: 'sales', name: 'Agent only', subscribers: ['lookup'], active: true });
const { refs } = await applyManifest(server.service.store, manifest, { clock: server.clock, keyRing: server.service.services.keyRing });
const sessions = server.service.services.sessions;
const store = server.service.store;
const base = `${server.url}/api/v1`;
let n = 0;
const fireOnce = () => {
  const i = n++;
  return call(`${base}/triggers/fire`, {
    method: 'POST',
    headers: { ...bearer(refs['bob-key'] ?? 'bob'), 'idempotency-key': `cost-${i}` },
    json: { triggerId: refs[triggerRef], input: { id: values['same-input'] ? 'c-1' : `c-${i}` } },
  });
};

async function round(profileFile?: string): Promise<{ us: number; units: number }> {
  const dispatch = sessions.dispatcher.dispatch;
  sessions.dispatcher.dispatch = () => undefined;
  for (let i = 0; i < FIRES; i++) {
    const a = await fireOnce();
    if (a.status !== 202) throw new Error(`fire answered ${a.status}`);
  }
  await new Promise<void>((resolve) => setImmediate(resolve));
  sessions.dispatcher.dispatch = dispatch;
  let session: import('node:inspector/promises').Session | undefined;
  if (profileFile) {
    const { Session } = await import('node:inspector/promises');
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
  }
  const unitsBefore = store.writer.stats.units;
  timing = true;
  const started = process.cpuUsage();
  const count = await sessions.dispatcher.recover();
  await sessions.dispatcher.idle();
  const cpu = process.cpuUsage(started);
  timing = false;
  const units = store.writer.stats.units - unitsBefore;
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    (await import('node:fs')).writeFileSync(profileFile!, JSON.stringify(profile));
    session.disconnect();
  }
  const executions = FIRES * perFire;
  if (count !== executions) throw new Error(`recovered ${count}, expected ${executions}`);
  return { us: (cpu.user + cpu.system) / executions, units: units / executions };
}

// Warm-up: JIT, caches (first fire resolves the plan, catalog, knowledge selection).
for (let i = 0; i < 20; i++) await fireOnce();
await new Promise<void>((resolve) => setImmediate(resolve));
await sessions.dispatcher.idle();
await round();
const figures: number[] = [];
let units = 0;
for (let r = 0; r < ROUNDS; r++) {
  const out = await round(r === ROUNDS - 1 ? values.profile : undefined);
  figures.push(out.us);
  units = out.units;
}
const sorted = [...figures].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)]!;
console.log(
  `mode=${mode} fires=${FIRES} rounds=${ROUNDS}: µs CPU per execution ${figures.map((f) => f.toFixed(0)).join(' ')}; ` +
    `median ${median.toFixed(0)}, min ${sorted[0]!.toFixed(0)}; ${units.toFixed(2)} write units per execution`,
);
if (values['sql-time']) {
  const executions = FIRES * perFire * (ROUNDS + 1);
  const rows = [...sqlTime].map(([statement, e]) => ({ sql: String((statement as { source: string }).source).replace(/\s+/g, ' ').trim(), ...e }));
  const total = rows.reduce((sum, r) => sum + r.ns, 0n);
  console.log(`SQLite time per execution: ${(Number(total) / 1000 / executions).toFixed(0)} µs in ${(rows.reduce((s, r) => s + r.n, 0) / executions).toFixed(1)} statements`);
  for (const r of rows.sort((a, b) => Number(b.ns - a.ns)).slice(0, 25)) {
    console.log(`${(Number(r.ns) / 1000 / executions).toFixed(1).padStart(7)} µs ${(r.n / executions).toFixed(2).padStart(5)}x  ${r.sql.slice(0, 140)}`);
  }
}
for (const fn of teardowns.reverse()) await fn();
