// Test world: the example workspace applied to a real store (the test storage mode's engine), the real session starter/dispatcher, the flow engine, a loopback CRM.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { ManualClock } from '../../../runtime/clock.js';
import { createSessionEventBus, type SessionEventBus } from '../../../runtime/events/index.js';
import { createFlowEngine, createRunApprovals, type FlowEngine, type RunApprovals } from '../../../runtime/flows/index.js';
import { applyManifest } from '../../../runtime/manifest/apply.js';
import { createScheduler, type Scheduler } from '../../../runtime/scheduler/index.js';
import { createCallerGrants } from '../../../runtime/turns/caller-grants.js';
import type { StartSessionRequest } from '../../../runtime/sessions/contracts.js';
import { createSessionDispatcher, type SessionDispatcher } from '../../../runtime/turns/dispatcher.js';
import { createSessionStarter } from '../../../runtime/sessions/session-starter.js';
import type { Caller } from '../../../runtime/sessions/session-access.js';
import { createHttpIntegrationExecutor } from '../../../runtime/tools/index.js';
import { createKeyRing, type KeyRing } from '../../../runtime/vault/index.js';
import type { Execution, ToolCall } from '../../../storage/records/executions.js';
import type { Message } from '../../../storage/records/sessions.js';
import type { Storage } from '../../../storage/port/storage.js';
import { openTestStore, type TestStore } from '../../helpers/test-store.js';
import { startCrm, type Contact } from './crm-upstream.js';

export const T0 = Date.UTC(2026, 10, 22, 12);

/** The repository's verbatim copy of the contract manifest (shared/examples/workspace.json). */
const EXAMPLE = new URL('../../../examples/workspace.json', import.meta.url);
const exampleWorkspace = (): any => JSON.parse(readFileSync(EXAMPLE, 'utf8'));

export const CONTACTS: Contact[] = [
  { id: 'c-1', name: 'Pat Pro', tier: 'pro' },
  { id: 'c-2', name: 'Erin Enterprise', tier: 'enterprise' },
];

/** An approvals row as stored (snake_case, arguments as JSON text): the trail reads that table itself. */
interface StoredApproval {
  id: string;
  execution_id: string;
  kind: string;
  routing: string;
  status: string;
  tool: string | null;
  args: string | null;
  initiated_by: string | null;
  decided_by: string | null;
  comment: string | null;
}

/** What a run left behind, read straight from the tables. */
export interface RunTrail {
  execution: Execution;
  calls: ToolCall[];
  approvals: StoredApproval[];
  messages: Message[];
  events: Array<{ seq: number; type: string; payload: Record<string, unknown> }>;
}

interface Engines {
  opened: TestStore;
  store: Storage;
  bus: SessionEventBus;
  scheduler: Scheduler;
  dispatcher: SessionDispatcher;
  engine: FlowEngine;
  approvals: RunApprovals;
  starter: ReturnType<typeof createSessionStarter>;
}

export interface WorldOptions {
  /** A database file (so a restart reopens it) instead of `:memory:`. */
  file?: boolean;
  /** Edits the example manifest before it is applied (e.g. extra flows). */
  manifest?: (manifest: any) => void;
}

function build(opened: TestStore, clock: ManualClock, keyRing: KeyRing, logs: string[]): Engines {
  const store = opened.store;
  const logger = pino({ level: 'debug' }, new Writable({ write: (chunk, _e, done) => (logs.push(String(chunk)), done()) }));
  const bus = createSessionEventBus({ repo: store.repos.sessionEvents, writer: store.writer, clock });
  const scheduler = createScheduler({ store, clock, logger });
  const grants = createCallerGrants({ executions: store.repos.executions, keyRing, scheduler, clock, writer: store.writer });
  const dispatcher = createSessionDispatcher({ store, logger });
  const engine = createFlowEngine({ store, clock, logger, bus, grants, keyRing, http: createHttpIntegrationExecutor({ allowPrivateNetworks: true }) });
  dispatcher.registerEngine('flow', engine);
  const approvals = createRunApprovals({ store, trail: engine.trail, dispatcher });
  const starter = createSessionStarter({ store, clock, dispatcher, grants, bus });
  return { opened, store, bus, scheduler, dispatcher, engine, approvals, starter };
}

export async function flowWorld(t: { teardown(fn: () => unknown): void }, options: WorldOptions = {}) {
  const crm = await startCrm(CONTACTS);
  const manifest = exampleWorkspace();
  manifest.integrations[0].baseUrl = crm.baseUrl;
  options.manifest?.(manifest);
  const dir = options.file ? mkdtempSync(join(tmpdir(), 'switchyard-flows-')) : null;
  const path = dir === null ? ':memory:' : join(dir, 'switchyard.db');
  const clock = new ManualClock(T0);
  const keyRing = createKeyRing([{ keyId: 'k1', key: randomBytes(32) }]);
  const logs: string[] = [];
  // The world closes its stores itself, after its engines stopped (a teardown per store could run before them).
  const closers: Array<() => unknown> = [];
  const owned = { teardown: (fn: () => unknown) => void closers.push(fn) };
  const opened = await openTestStore(owned, { path });
  const { refs } = await applyManifest(opened.store, manifest, { clock, keyRing });
  let live = build(opened, clock, keyRing, logs);

  async function shutdown(closeStore: boolean): Promise<void> {
    await live.dispatcher.stop();
    await live.bus.close();
    live.scheduler.close();
    if (closeStore) await live.opened.close();
  }
  t.teardown(async () => {
    await shutdown(true);
    for (const close of closers) await close();
    await crm.close();
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
  });

  const orgId = refs.acme!;
  const caller = (user: string): Caller => ({ userId: refs[user]!, orgId });

  return {
    crm,
    clock,
    keyRing,
    logs,
    refs,
    orgId,
    caller,
    get store() {
      return live.store;
    },
    /** Portable SQL over the world's database (test/helpers/sql.ts). */
    get sql() {
      return live.opened.sql;
    },
    get engine() {
      return live.engine;
    },
    get dispatcher() {
      return live.dispatcher;
    },
    get approvals() {
      return live.approvals;
    },
    get starter() {
      return live.starter;
    },

    /** Starts a run the way a fire does (plan, write in a unit of work, dispatch); `settle` waits for it to park or end. */
    async start(input: Record<string, unknown>, request: Partial<StartSessionRequest> & { flow?: string } = {}, settle = true) {
      const { flow = 'enrich', ...rest } = request;
      const planned = await live.starter.plan({ orgId, automationId: refs[flow]!, actorUserId: refs.ada!, origin: 'trigger', visibility: 'domain', input, ...rest });
      await live.store.writer.submit((tx) => planned.write(tx));
      planned.dispatch();
      if (settle) await live.dispatcher.idle(planned.sessionId);
      return { sessionId: planned.sessionId, executionId: planned.executionId };
    },

    /** Stops every engine (in-flight calls are aborted and left unrecorded, as on shutdown) and builds new ones over the same database. */
    async restart(): Promise<void> {
      // A file database (on PostgreSQL: the same database) is closed and opened again (what a new process sees);
      // `:memory:` keeps its one connection.
      await shutdown(dir !== null);
      live = build(dir !== null ? await openTestStore(owned, { path }) : live.opened, clock, keyRing, logs);
    },

    async trail(sessionId: string): Promise<RunTrail> {
      const { repos } = live.store;
      const execution = (await repos.executions.latestExecution(sessionId))!;
      return {
        execution,
        calls: await repos.executions.toolCallsOfSession(sessionId),
        approvals: await live.opened.sql.all<StoredApproval>('SELECT * FROM approvals WHERE session_id = ? ORDER BY created_at, id', sessionId),
        messages: await repos.sessions.conversation(sessionId),
        events: (await repos.sessionEvents.listRange(sessionId, 0, Number.MAX_SAFE_INTEGER, 10_000)).map((row) => ({ seq: row.seq, type: row.type, payload: JSON.parse(row.payload) })),
      };
    },
  };
}

export type FlowWorld = Awaited<ReturnType<typeof flowWorld>>;
