// Composes agent conversations: turn actors, grants, dispatcher + agent engine, starter, approvals, read models.
import type { Store } from '../../storage/store.js';
import type { FileRow } from '../../storage/repos/sessions.repo.js';
import type { ActorRegistry } from '../actors/index.js';
import type { Clock } from '../clock.js';
import type { Admission } from '../execution/admission.js';
import { createPacer } from '../execution/pacer.js';
import { createMaterializer, type Materializer } from '../execution/materializer.js';
import type { ServiceConfig } from '../config.js';
import { notFound } from '../errors.js';
import type { SessionEventBus, SnapshotPayload } from '../events/index.js';
import { createKnowledgeSource, createKnowledgeToolProvider } from '../knowledge/knowledge-search.tool.js';
import type { Logger } from '../logger.js';
import { loadModelConfig, resolveModel, type ModelConfig } from '../models/index.js';
import type { Scheduler } from '../scheduler/index.js';
import { createHttpIntegrationExecutor, createJsonSchemaValidator } from '../tools/index.js';
import { createAgentEngine } from '../turns/agent-engine.js';
import { registerFlows, type RunApprovals } from '../flows/index.js';
import { createHttpToolProvider } from '../turns/http-tool.provider.js';
import { createToolProviderRegistry, type ToolProviderRegistry } from '../turns/tool-providers.js';
import { createCatalogCache } from '../turns/turn-tools.js';
import type { KeyRing } from '../vault/index.js';
import type { Telemetry } from '../telemetry/index.js';
import { createApprovalDeadlines, handleApprovalExpiry } from './approval-deadlines.js';
import { createApprovalService, type ApprovalService } from './approval.service.js';
import { createCallerGrants } from './caller-grants.js';
import { createCancelService, type CancelService } from './cancel.service.js';
import type { SessionStarter } from './contracts.js';
import { createConversationService, type ConversationService } from './conversation.service.js';
import { createSessionDispatcher, type SessionDispatcher } from './dispatcher.js';
import { visibleSession, type Caller } from './session-access.js';
import { createSessionStarter, createStartWriter } from './session-starter.js';
import { createSessionLifecycle, type SessionLifecycle } from './session-lifecycle.service.js';
import { createSessionList, type SessionList } from './session-list.js';
import { sessionView, streamSnapshot, type SessionView } from './session-view.js';
import { registerTurnActors } from './turn-actor.js';

export interface SessionsRuntimeDeps {
  config: ServiceConfig;
  clock: Clock;
  logger: Logger;
  store: Store;
  keyRing: KeyRing;
  bus: SessionEventBus;
  registry: ActorRegistry;
  scheduler: Scheduler;
  /** Bounds the execution queue: run entry points are refused past it. */
  admission: Admission;
  /** Provider settings for `openai:`, `anthropic:`, `openai-compatible:` models (default: from the environment). */
  modelConfig?: ModelConfig;
  telemetry: Pick<Telemetry, 'traceEngines' | 'observeModel' | 'traceTools'>;
}

export interface SessionsRuntime {
  /** For every entry point that starts work (fire, MCP, partner API). */
  readonly starter: SessionStarter;
  /** Register another automation kind's engine here (`dispatcher.registerEngine('flow', engine)`). */
  readonly dispatcher: SessionDispatcher;
  /** Writes the sessions an accept recorded in its one row; reads call `catchUp()` first (runtime/execution/materializer.ts). */
  readonly materializer: Materializer;
  readonly conversations: ConversationService;
  readonly approvals: ApprovalService;
  /** The sessions a caller can see, and one session's messages and tool calls, by keyset pages. */
  readonly list: SessionList;
  /** Rename, outcome, archive / unarchive, delete (canManage). */
  readonly lifecycle: SessionLifecycle;
  /** Cancel a queued, running or suspended execution (agent turn or flow run). */
  readonly cancels: CancelService;
  /** Flow run approvals (partner `POST /worker/approvals/runs/:runId`). */
  readonly runApprovals: RunApprovals;
  /** Built-in tool providers (`http`, `knowledge`) and the knowledge source; more may be registered before start. */
  readonly tools: ToolProviderRegistry;
  view(caller: Caller, sessionId: string): SessionView;
  /** The stream's opening state; visibility is checked by `visible`. */
  snapshot(sessionId: string): SnapshotPayload;
  visible(caller: Caller, sessionId: string): void;
  file(caller: Caller, sessionId: string, fileId: string): FileRow;
  /** Boot recovery: writes pending accepts, then resumes queued, running and resume-queued executions; returns how many sessions. */
  start(): number;
  stop(): Promise<void>;
}

export function createSessionsRuntime(deps: SessionsRuntimeDeps): SessionsRuntime {
  const { store, clock, logger, bus, config } = deps;
  const { repos } = store;
  const grants = createCallerGrants({ executions: repos.executions, keyRing: deps.keyRing, scheduler: deps.scheduler, clock, writer: store.writer });
  // One pacer for every execution on this loop: their CPU is sliced so HTTP and SSE are served between slices.
  const pacer = createPacer();
  // Bound below (it dispatches through the dispatcher): the dispatcher's idle() also waits for accepts not yet written.
  let materializer: Materializer | undefined;
  const intake = { idle: () => materializer?.idle() ?? Promise.resolve() };
  const dispatcher = deps.telemetry.traceEngines(createSessionDispatcher({ store, logger, admission: deps.admission, pacer, intake }));
  const deadlines = createApprovalDeadlines({ scheduler: deps.scheduler, ttlMs: config.approvalTtlMs });

  // A turn whose actor cannot be restored (or keeps failing) is recorded as failed so its session moves on.
  const turns = registerTurnActors(deps.registry, repos.executions, async (failure) => {
    const execution = repos.executions.execution(failure.id);
    if (execution === undefined || execution.settled_at !== null) return;
    const envelopes = await store.writer.submit(() => {
      deps.registry.retire('session-turn', failure.id)();
      repos.executions.settle(failure.id, 'failed', clock.now(), 'TURN_FAILED', 'The turn could not be continued.');
      grants.discard(failure.id);
      return bus.append(execution.session_id, { type: 'turn.completed', executionId: failure.id, outcome: 'failed', errorCode: 'TURN_FAILED' })();
    });
    bus.publish(envelopes);
    dispatcher.dispatch(execution.session_id);
  });

  const tools = createToolProviderRegistry();
  tools.register(createHttpToolProvider({ allowPrivateNetworks: config.httpToolAllowPrivateNetworks }));
  tools.register(createKnowledgeToolProvider({ store }));
  tools.setKnowledgeSource(createKnowledgeSource({ store }));

  const validator = createJsonSchemaValidator();
  const catalogFor = createCatalogCache(repos.integrations);
  const modelConfig = deps.modelConfig ?? loadModelConfig(process.env);
  dispatcher.registerEngine(
    'agent',
    createAgentEngine({
      store,
      clock,
      logger,
      bus,
      turns,
      grants,
      deadlines,
      keyRing: deps.keyRing,
      providers: tools,
      catalogFor,
      http: deps.telemetry.traceTools(createHttpIntegrationExecutor({ validator })),
      validator,
      resolveModel: (model) => deps.telemetry.observeModel(resolveModel(model, modelConfig)),
      limits: { maxSteps: config.turnMaxSteps, maxTokens: config.turnMaxTokens, maxWallMs: config.turnMaxWallMs },
      pacer,
    }),
  );

  // Flows run on the same dispatcher, grants and tool providers (issue 5 item 5).
  const flows = registerFlows({ store, clock, logger, bus, grants, deadlines, keyRing: deps.keyRing, dispatcher, providers: tools, http: deps.telemetry.traceTools(createHttpIntegrationExecutor({ validator })), validator });

  handleApprovalExpiry({ store, clock, bus, grants, turns, dispatcher, scheduler: deps.scheduler, deadlines });
  const starter = createSessionStarter({ store, clock, dispatcher, grants, bus });
  materializer = createMaterializer({
    repos,
    writer: store.writer,
    transaction: (work) => store.transaction(work),
    inTransaction: () => store.db.inTransaction,
    writeStart: createStartWriter({ store, dispatcher, grants }),
    dispatch: (sessionId) => dispatcher.dispatch(sessionId),
    logger,
  });
  return {
    starter,
    dispatcher,
    materializer,
    conversations: createConversationService({ store, clock, bus, grants, dispatcher, starter, admission: deps.admission, materializer }),
    approvals: createApprovalService({ store, clock, bus, grants, deadlines, turns, dispatcher, validator, catalogFor }),
    cancels: createCancelService({ store, clock, bus, grants, deadlines, turns, dispatcher }),
    list: createSessionList(repos),
    lifecycle: createSessionLifecycle({ store, clock, bus }),
    runApprovals: flows.runApprovals,
    tools,
    view: (caller, sessionId) => sessionView(repos, caller, visibleSession(repos, caller, sessionId)),
    snapshot: (sessionId) => streamSnapshot(repos, sessionId),
    visible(caller, sessionId) {
      visibleSession(repos, caller, sessionId);
    },
    file(caller, sessionId, fileId) {
      visibleSession(repos, caller, sessionId);
      const file = repos.sessions.file(sessionId, fileId);
      if (file === undefined) throw notFound();
      return file;
    },
    start() {
      // Accepts that committed but were not written out before a crash become sessions before any work starts.
      materializer.recover();
      return dispatcher.recover();
    },
    async stop() {
      await materializer.idle();
      await dispatcher.stop();
    },
  };
}
