// The flow engine behind the session dispatcher (kind 'flow'): admits starts on published flows and runs them.
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import { notFound, validation } from '../errors.js';
import type { SessionEventBus } from '../events/index.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { ApprovalDeadlines } from '../turns/approval-deadlines.js';
import type { CallerGrants } from '../turns/caller-grants.js';
import type { SessionEngine } from '../turns/engine.js';
import { SettledBeforeStart } from '../turns/settled-before-start.js';
import type { HttpIntegrationExecutor } from '../tools/http-integration.executor.js';
import { createJsonSchemaValidator, type JsonSchemaValidator } from '../tools/json-schema-validator.js';
import type { ToolProviderRegistry } from '../tools/tool-providers.js';
import { organizationCatalog } from '../turns/turn-tools.js';
import type { KeyRing } from '../vault/index.js';
import { flowBelt } from './flow-definition.js';
import { FLOW_FAILURE } from './flow-errors.js';
import type { FlowRunnerDeps } from './flow-runner-deps.js';
import { runFlowExecution } from './flow-runner.js';
import { createFlowToolExecutor } from './flow-tool-executor.js';
import { createFlowTrail, type FlowTrail } from './flow-trail.js';
import { createFlowVersions, type FlowVersions } from './flow-versions.js';
import type { FlowCatalog } from './validate-flow.js';

export interface FlowEngineDeps {
  readonly store: Pick<Storage, 'repos' | 'writer'>;
  readonly clock: Clock;
  readonly logger: Pick<Logger, 'error'>;
  readonly bus: Pick<SessionEventBus, 'append' | 'publish'>;
  readonly grants: CallerGrants;
  /** The approval window of run approvals (absent: they wait indefinitely, as in some unit tests). */
  readonly deadlines?: ApprovalDeadlines;
  readonly keyRing: KeyRing;
  /** Executes declarative integration tools (the agent engine's executor can be shared). */
  readonly http: HttpIntegrationExecutor;
  /** Built-in tool providers (`http`); the agent engine's registry can be shared. */
  readonly providers?: Pick<ToolProviderRegistry, 'get'>;
  readonly validator?: JsonSchemaValidator;
  /** Defaults to the organization's catalog read from the integrations table. */
  readonly catalogFor?: (orgId: string) => Promise<FlowCatalog>;
}

export interface FlowEngine extends SessionEngine {
  /** The trail writer, shared with run approvals so both record the same way. */
  readonly trail: FlowTrail;
  readonly versions: FlowVersions;
}

export function createFlowEngine(deps: FlowEngineDeps): FlowEngine {
  const { repos } = deps.store;
  const validator = deps.validator ?? createJsonSchemaValidator();
  const versions = createFlowVersions(repos.automations);
  const trail = createFlowTrail({ writer: deps.store.writer, bus: deps.bus, clock: deps.clock, grants: deps.grants, deadlines: deps.deadlines });
  const runner: FlowRunnerDeps = {
    store: deps.store,
    clock: deps.clock,
    logger: deps.logger,
    trail,
    versions,
    executor: createFlowToolExecutor({ http: deps.http, providers: deps.providers }),
    validator,
    grants: deps.grants,
    keyRing: deps.keyRing,
    catalogFor: deps.catalogFor ?? ((orgId) => organizationCatalog(repos.integrations, orgId)),
  };

  return {
    trail,
    versions,

    async admit(request, automation) {
      if (automation.kind !== 'flow' || automation.publishedRevision === null) throw notFound();
      const loaded = await versions.load(automation.id, automation.publishedRevision);
      if (!loaded.ok) throw notFound();
      // Validated before anything is written or runs; issues name paths and rules, never the values sent.
      const check = validator.validate(loaded.flow.definition.inputs, request.input ?? {});
      if (!check.ok) {
        throw validation("The input does not match the flow's declared inputs.", { issues: check.issues.map((i) => ({ path: i.path || '(root)', message: i.message })) });
      }
      return { revision: loaded.flow.version, bindings: flowBelt(loaded.flow.definition) };
    },

    async writeStart(tx, start) {
      // The input as the run's opening message, so the session reads as "asked with this, answered with that".
      await tx.repos.sessions.insertMessage({
        id: newId(),
        sessionId: start.sessionId,
        executionId: start.executionId,
        role: 'user',
        authorUserId: start.request.actorUserId,
        content: JSON.stringify(start.request.input ?? {}, null, 2),
        payload: JSON.stringify({ input: start.request.input ?? {} }),
        createdAt: start.now,
      });
      // A session being opened has no subscriber yet (its id is in this very answer) and its snapshot carries the
      // message: the signal is for messages appended to a live session only (one row less per opened session).
      if (start.entry === 'open') return [];
      return deps.bus.append(tx, start.sessionId, { type: 'session.changed', change: 'message_added' });
    },

    async run(execution, signal) {
      try {
        await runFlowExecution(runner, execution, signal);
      } catch (error) {
        if (signal.aborted || error instanceof SettledBeforeStart) return;
        deps.logger.error({ executionId: execution.executionId, err: error instanceof Error ? error.message : String(error) }, 'flow run failed unexpectedly');
        await failStuckRun(runner, execution.sessionId, execution.executionId);
      }
    },
  };
}

/** Last resort after an unexpected error: record the run as failed so the session's queue can move on. */
async function failStuckRun(deps: FlowRunnerDeps, sessionId: string, executionId: string): Promise<void> {
  const execution = await deps.store.repos.executions.execution(executionId);
  if (execution === undefined || !['queued', 'resume_queued', 'running'].includes(execution.status)) return;
  const run = { orgId: (await deps.store.repos.sessions.session(sessionId))?.orgId ?? '', sessionId, executionId, initiatedBy: execution.createdBy };
  await deps.trail.commit(sessionId, async (unit) => {
    if (execution.status !== 'running') await deps.trail.started(unit, run, execution.status !== 'queued');
    await deps.trail.settle(unit, run, 'failed', { code: FLOW_FAILURE.FLOW_FAILED, message: 'The flow run failed unexpectedly.' });
  });
}
