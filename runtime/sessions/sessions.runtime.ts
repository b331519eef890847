// Composes agent conversations on the turns runtime: starter, conversations, approvals and cancels (access), read models.
import type { Storage } from '../../storage/port/storage.js';
import type { SessionFile } from '../../storage/records/sessions.js';
import type { Clock } from '../clock.js';
import type { Admission } from '../execution/admission.js';
import { createMaterializer, type Materializer } from '../execution/materializer.js';
import { notFound } from '../errors.js';
import type { SessionEventBus, SnapshotPayload } from '../events/index.js';
import type { SessionDispatcher } from '../turns/dispatcher.js';
import type { ToolProviderRegistry } from '../tools/tool-providers.js';
import type { TurnsRuntime } from '../turns/turns.runtime.js';
import { createApprovalInbox, type ApprovalInbox } from './approval-inbox.js';
import { createApprovalService, type ApprovalService } from './approval.service.js';
import { createCancelService, type CancelService } from './cancel.service.js';
import type { SessionStarter } from './contracts.js';
import { createConversationService, type ConversationService } from './conversation.service.js';
import { visibleSession, type Caller } from './session-access.js';
import { createSessionStarter, createStartWriter } from './session-starter.js';
import { createSessionLifecycle, type SessionLifecycle } from './session-lifecycle.service.js';
import { createSessionList, type SessionList } from './session-list.js';
import { sessionView, streamSnapshot, type SessionView } from './session-view.js';

export interface SessionsRuntimeDeps {
  clock: Clock;
  store: Storage;
  bus: SessionEventBus;
  /** Bounds the execution queue: run entry points are refused past it. */
  admission: Admission;
  /** What drives the sessions' executions (turns/turns.runtime.ts). */
  turns: TurnsRuntime;
  /** Writes what accepts recorded; by default this side's own (the execution thread's accept side posts to the worker). */
  materializer?: Materializer;
}

export interface SessionsRuntime {
  /** For every entry point that starts work (fire, MCP, partner API). */
  readonly starter: SessionStarter;
  /** The turns runtime's dispatcher: every session's executions, one at a time, on their kind's engine. */
  readonly dispatcher: SessionDispatcher;
  /** Writes the sessions an accept recorded in its one row; reads wait for `writtenSoFar()` first (runtime/execution/materializer.ts). */
  readonly materializer: Materializer;
  readonly conversations: ConversationService;
  readonly approvals: ApprovalService;
  /** Pending approvals a person may decide, across sessions and flow runs (the console's inbox). */
  readonly inbox: ApprovalInbox;
  /** The sessions a caller can see, and one session's messages and tool calls, by keyset pages. */
  readonly list: SessionList;
  /** Rename, outcome, archive / unarchive, delete (canManage). */
  readonly lifecycle: SessionLifecycle;
  /** Cancel a queued, running or suspended execution (agent turn or flow run). */
  readonly cancels: CancelService;
  /** Built-in tool providers (`http`, `knowledge`) and the knowledge source; more may be registered before start. */
  readonly tools: ToolProviderRegistry;
  view(caller: Caller, sessionId: string): Promise<SessionView>;
  /** The stream's opening state; visibility is checked by `visible`. */
  snapshot(sessionId: string): Promise<SnapshotPayload>;
  visible(caller: Caller, sessionId: string): Promise<void>;
  file(caller: Caller, sessionId: string, fileId: string): Promise<SessionFile>;
  /** Boot recovery: writes pending accepts, then resumes queued, running and resume-queued executions; returns how many sessions. */
  start(): Promise<number>;
  stop(): Promise<void>;
}

export function createSessionsRuntime(deps: SessionsRuntimeDeps): SessionsRuntime {
  const { store, clock, bus, turns } = deps;
  const { repos } = store;
  const { dispatcher, grants } = turns;
  const starter = createSessionStarter({ store, clock, dispatcher, grants, bus });
  const materializer = deps.materializer ?? createMaterializer({
    repos,
    writer: store.writer,
    writeStart: createStartWriter({ dispatcher, grants }),
    dispatch: (sessionId) => dispatcher.dispatch(sessionId),
    logger: turns.engineDeps.logger,
  });
  return {
    starter,
    dispatcher,
    materializer,
    conversations: createConversationService({ store, clock, bus, grants, dispatcher, starter, admission: deps.admission, materializer }),
    approvals: createApprovalService({ store, decisions: turns.decisions }),
    inbox: createApprovalInbox({ repos, catalogFor: turns.catalogFor }),
    cancels: createCancelService({ store, executions: turns.cancels }),
    list: createSessionList(repos),
    lifecycle: createSessionLifecycle({ store, clock, bus }),
    tools: turns.tools,
    view: async (caller, sessionId) => sessionView(repos, caller, await visibleSession(repos, caller, sessionId)),
    snapshot: (sessionId) => streamSnapshot(repos, sessionId),
    async visible(caller, sessionId) {
      await visibleSession(repos, caller, sessionId);
    },
    async file(caller, sessionId, fileId) {
      await visibleSession(repos, caller, sessionId);
      const file = await repos.sessions.file(sessionId, fileId);
      if (file === undefined) throw notFound();
      return file;
    },
    async start() {
      // Accepts that committed but were not written out before a crash become sessions before any work starts.
      await materializer.recover();
      return dispatcher.recover();
    },
    async stop() {
      await materializer.idle();
      await dispatcher.stop();
    },
  };
}
