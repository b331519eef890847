// Composes what drives executions: turn actors, grants, the dispatcher and agent engine, approval windows, decisions, cancels.
import type { SessionOwnership } from '../../storage/port/ownership.js';
import type { Storage } from '../../storage/port/storage.js';
import type { ActorRegistry } from '../actors/index.js';
import type { Clock } from '../clock.js';
import type { ServiceConfig } from '../config.js';
import type { SessionEventBus } from '../events/index.js';
import type { Admission } from '../execution/admission.js';
import type { Pacer } from '../execution/pacer.js';
import { createAgentKnowledgeSearch, createKnowledgeSource, createKnowledgeToolProvider } from '../knowledge/knowledge-search.tool.js';
import type { Logger } from '../logger.js';
import { loadModelConfig, resolveModel, type ModelConfig } from '../models/index.js';
import type { Scheduler } from '../scheduler/index.js';
import type { Telemetry } from '../telemetry/index.js';
import { createConnectionPools, createHttpIntegrationExecutor, createJsonSchemaValidator, type HttpIntegrationExecutor, type JsonSchemaValidator } from '../tools/index.js';
import type { KeyRing } from '../vault/index.js';
import { createAgentEngine } from './agent-engine.js';
import { createApprovalDeadlines, handleApprovalExpiry, type ApprovalDeadlines } from './approval-deadlines.js';
import { createCallerGrants, type CallerGrants } from './caller-grants.js';
import { createSessionDispatcher, type SessionDispatcher } from './dispatcher.js';
import { createExecutionCancel, type ExecutionCancel } from './execution-cancel.js';
import { createHttpToolProvider } from './http-tool.provider.js';
import { createToolProviderRegistry, type ToolProviderRegistry } from '../tools/tool-providers.js';
import { failUnrestorableTurn, registerTurnActors } from './turn-actor.js';
import { createTurnApprovals, type TurnApprovals } from './turn-approval.js';
import { createCatalogCache, type CatalogSource } from './turn-tools.js';

export interface TurnsRuntimeDeps {
  config: ServiceConfig;
  clock: Clock;
  logger: Logger;
  store: Storage;
  keyRing: KeyRing;
  bus: SessionEventBus;
  registry: ActorRegistry;
  scheduler: Scheduler;
  /** Bounds the execution queue: the dispatcher reports what it starts. */
  admission: Admission;
  /** Provider settings for `openai:`, `anthropic:`, `openai-compatible:` models (default: from the environment). */
  modelConfig?: ModelConfig;
  telemetry: Pick<Telemetry, 'traceEngines' | 'observeModel' | 'traceTools'>;
  /** Accepts not yet written out (the materializer): the dispatcher's idle() waits for them too. */
  intake?: { idle(): Promise<void> };
  /** Slices execution work on the accept loop (runtime/execution/pacer.ts), shared with the group-commit writer. */
  pacer: Pacer;
  /** Which node runs a session's turns (N nodes on PostgreSQL); default: this process runs every session. */
  ownership?: SessionOwnership;
  /** Another thread runs the executions (SWITCHYARD_EXECUTION=thread, main side): its remote dispatcher, used as is. */
  dispatcher?: SessionDispatcher;
}

/** What another engine (flows) is built from: the same grants, approval windows, tool providers and HTTP executor. */
export interface EngineDeps {
  readonly store: Storage;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly bus: SessionEventBus;
  readonly grants: CallerGrants;
  readonly deadlines: ApprovalDeadlines;
  readonly keyRing: KeyRing;
  readonly providers: ToolProviderRegistry;
  readonly http: HttpIntegrationExecutor;
  readonly validator: JsonSchemaValidator;
  /** The organization's integration catalog, parsed once while its integrations are unchanged (so are compiled schemas). */
  readonly catalogFor: CatalogSource;
}

export interface TurnsRuntime {
  /** Register another automation kind's engine here (`dispatcher.registerEngine('flow', engine)`). */
  readonly dispatcher: SessionDispatcher;
  readonly grants: CallerGrants;
  /** Built-in tool providers (`http`, `knowledge`) and the knowledge source; more may be registered before start. */
  readonly tools: ToolProviderRegistry;
  /** What deciding a suspended turn's approval does to the turn (who may decide is the session's check). */
  readonly decisions: TurnApprovals;
  /** Settles and aborts one execution (agent turn or flow run). */
  readonly cancels: ExecutionCancel;
  readonly engineDeps: EngineDeps;
  /** The organization's parsed integration catalog (the approvals inbox shows a tool's input schema from it). */
  readonly catalogFor: CatalogSource;
  /** Closes the kept-alive connections of read-only tool calls (after the running executions stopped). */
  close(): void;
}

export function createTurnsRuntime(deps: TurnsRuntimeDeps): TurnsRuntime {
  const { store, clock, logger, bus, config, keyRing } = deps;
  const { repos } = store;
  const grants = createCallerGrants({ executions: repos.executions, keyRing, scheduler: deps.scheduler, clock, writer: store.writer });
  // The service's one pacer: executions' CPU is sliced so HTTP and SSE are served between slices.
  const { pacer } = deps;
  const dispatcher = deps.dispatcher ?? deps.telemetry.traceEngines(createSessionDispatcher({ store, logger, admission: deps.admission, pacer, intake: deps.intake, ownership: deps.ownership }));
  const deadlines = createApprovalDeadlines({ scheduler: deps.scheduler, ttlMs: config.approvalTtlMs });
  // A turn whose actor cannot be restored (or keeps failing) is recorded as failed so its session moves on.
  const turns = registerTurnActors(deps.registry, repos.executions, (failure) => failUnrestorableTurn({ store, clock, bus, grants, registry: deps.registry, dispatcher }, failure));

  const tools = createToolProviderRegistry();
  tools.register(createHttpToolProvider({ allowPrivateNetworks: config.httpToolAllowPrivateNetworks }));
  // One answer cache for the prompt's snippets and the tool (a repeated question searches once until knowledge changes).
  const search = createAgentKnowledgeSearch(store);
  tools.register(createKnowledgeToolProvider({ store, search }));
  tools.setKnowledgeSource(createKnowledgeSource({ store, search }));

  const validator = createJsonSchemaValidator();
  const catalogFor = createCatalogCache(repos.integrations);
  // Read-only tool calls reuse connections per organization and identity (connection-pools.ts); writes dial afresh.
  const pools = createConnectionPools();
  const http = deps.telemetry.traceTools(createHttpIntegrationExecutor({ validator, pools }));
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
      keyRing,
      providers: tools,
      catalogFor,
      http,
      validator,
      resolveModel: (model) => deps.telemetry.observeModel(resolveModel(model, modelConfig)),
      limits: { maxSteps: config.turnMaxSteps, maxTokens: config.turnMaxTokens, maxWallMs: config.turnMaxWallMs },
      pacer,
    }),
  );

  const moving = { store, clock, bus, grants, deadlines, turns, dispatcher };
  handleApprovalExpiry({ ...moving, scheduler: deps.scheduler });
  return {
    dispatcher,
    grants,
    tools,
    decisions: createTurnApprovals({ ...moving, validator, catalogFor }),
    cancels: createExecutionCancel({ ...moving, ownership: deps.ownership }),
    engineDeps: { store, clock, logger, bus, grants, deadlines, keyRing, providers: tools, http, validator, catalogFor },
    catalogFor,
    close: () => pools.close(),
  };
}
