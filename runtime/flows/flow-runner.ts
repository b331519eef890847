// Owns running one flow execution: steps in order, each recorded before the next, resumable from what the trail holds.
/*
 * Durability: every step's outcome commits before the next step starts, so the trail is the run's state. A run
 * picked up again (approval decided, or boot after a crash) walks the graph from the top: conditions are
 * re-evaluated over recorded outputs (so they take the same branches), finished calls are read back and never
 * repeated, a readonly call left in flight is repeated, and any other call left in flight is failed INTERRUPTED:
 * it may have reached the upstream, and repeating a write is worse than stopping.
 */
import type { Execution, ToolCall } from '../../storage/records/executions.js';
import type { Session } from '../../storage/records/sessions.js';
import type { JsonValue } from '../manifest/json-value.schema.js';
import type { QueuedExecution } from '../turns/engine.js';
import type { FoundTool } from '../tools/catalog.js';
import { formatIssues } from '../tools/json-schema-validator.js';
import type { ToolIdentity } from '../tools/http-integration.executor.js';
import type { ToolResult } from '../tools/tool-result.js';
import { resolveCallIdentity } from '../turns/call-identity.js';
import type { ToolCallScope } from '../tools/tool-providers.js';
import { isVaultError } from '../vault/index.js';
import { truthy, type FlowScope } from './expression-eval.js';
import { isToolStep, type FlowStep, type ToolStep } from './flow-definition.js';
import { FLOW_FAILURE, type RecordedFailure } from './flow-errors.js';
import type { FlowRunnerDeps } from './flow-runner-deps.js';
import type { CallSpec, RunRef, TrailUnit } from './flow-trail.js';
import type { LoadedFlow } from './flow-versions.js';
import type { FlowCatalog } from './validate-flow.js';

const INTERRUPTED_MESSAGE = 'The service stopped while this call was in flight. It may have reached the upstream service, so it was not repeated.';

type Identity = { readonly ok: true; readonly identity: ToolIdentity | null } | { readonly ok: false; readonly failure: RecordedFailure };

function specOf(row: ToolCall): CallSpec {
  return {
    stepId: row.callRef ?? '',
    tool: row.tool,
    integrationId: row.integrationId ?? row.tool.slice(0, row.tool.indexOf('.')),
    readonly: row.readonly,
    args: row.args as Record<string, unknown>,
  };
}

/** Outputs are kept as their stored JSON, so a run and its resumption read byte-identical values. */
const stored = (value: unknown): JsonValue => JSON.parse(JSON.stringify(value ?? null)) as JsonValue;

class FlowRun {
  private readonly outputs = new Map<string, JsonValue>();
  private readonly scope: FlowScope;
  private readonly run: RunRef;
  private readonly toolScope: ToolCallScope;

  constructor(
    private readonly deps: FlowRunnerDeps,
    private readonly session: Session,
    private readonly execution: Execution,
    private readonly flow: LoadedFlow,
    private readonly catalog: FlowCatalog,
    input: JsonValue,
    private readonly signal: AbortSignal,
  ) {
    this.scope = { input, outputs: this.outputs };
    this.run = { orgId: session.orgId, sessionId: session.id, executionId: execution.id, initiatedBy: execution.createdBy ?? session.createdBy, fresh: execution.status === 'queued' };
    this.toolScope = { orgId: session.orgId, domainId: session.domainId, automationId: session.automationId, sessionId: session.id, executionId: execution.id };
  }

  private get trail() {
    return this.deps.trail;
  }

  /** Set by `start`: the run's start (`resumed` flag) waits to be written with the run's first durable fact. */
  private pendingStart: boolean | null = null;

  /**
   * Every unit of this run. The start (markStarted, turn.started) rides in the first one instead of a unit of its
   * own (issue 12 item 5): before it nothing ran that a restart must not repeat, so a crash in between leaves the
   * execution queued and it simply starts again.
   */
  private async commit<T>(work: (unit: TrailUnit) => Promise<T>): Promise<T> {
    const resumed = this.pendingStart;
    this.pendingStart = null;
    try {
      return await this.trail.commit(this.run.sessionId, async (unit) => {
        if (resumed !== null) await this.trail.started(unit, this.run, resumed);
        return work(unit);
      });
    } catch (error) {
      if (resumed !== null) this.pendingStart = resumed;
      throw error;
    }
  }

  private async settle(outcome: 'completed' | 'failed' | 'rejected', failure: RecordedFailure | null, output?: JsonValue): Promise<void> {
    await this.commit((unit) => this.trail.settle(unit, this.run, outcome, failure, output));
  }

  private async refuse(call: CallSpec, failure: RecordedFailure, existing?: ToolCall, detail?: unknown): Promise<false> {
    await this.commit(async (unit) => {
      await this.trail.callRefused(unit, this.run, call, failure, existing, detail);
      await this.trail.settle(unit, this.run, 'failed', this.stepFailure(call, failure));
    });
    return false;
  }

  private stepFailure(call: CallSpec, failure: RecordedFailure): RecordedFailure {
    return { code: failure.code, message: `Step "${call.stepId}" (${call.tool}) failed: ${failure.message}` };
  }

  async start(): Promise<void> {
    this.pendingStart = this.execution.status !== 'queued';
    if (!(await this.steps(this.flow.definition.steps))) return;
    if (this.signal.aborted) return;
    await this.settle('completed', null, this.flow.templates.renderValue(this.flow.definition.output, this.scope));
  }

  /** True when every step ran and the walk goes on; false when the run settled, parked, or is shutting down. */
  private async steps(list: readonly FlowStep[]): Promise<boolean> {
    for (const step of list) {
      if (this.signal.aborted) return false;
      const goOn = isToolStep(step) ? await this.toolStep(step) : await this.steps(this.branchOf(step));
      if (!goOn) return false;
    }
    return true;
  }

  private branchOf(step: Exclude<FlowStep, ToolStep>): readonly FlowStep[] {
    return truthy(this.flow.templates.renderValue(step.if.trim(), this.scope)) ? step.then : (step.else ?? []);
  }

  private async toolStep(step: ToolStep): Promise<boolean> {
    const existing = await this.deps.store.repos.executions.toolCallByRef(this.execution.id, step.id);
    if (existing !== undefined) return this.known(existing);

    const found = this.catalog.findTool(step.tool);
    const args = this.flow.templates.renderValue(step.args ?? {}, this.scope) as Record<string, JsonValue>;
    const call: CallSpec = {
      stepId: step.id,
      tool: step.tool,
      integrationId: found?.integration.id ?? step.tool.slice(0, step.tool.indexOf('.')),
      readonly: found?.tool.readonly ?? false,
      args,
    };
    if (found === undefined || !this.deps.executor.available(found)) {
      return this.refuse(call, { code: FLOW_FAILURE.UNKNOWN_TOOL, message: `"${step.tool}" is not available to this flow.` });
    }
    // Checked before approval and before any call: nobody approves, and no upstream sees, a malformed call.
    const check = this.deps.validator.validate(found.tool.inputSchema, args);
    if (!check.ok) {
      const message = `The arguments do not match the tool's input: ${formatIssues(check.issues)}`;
      return this.refuse(call, { code: FLOW_FAILURE.INVALID_ARGUMENTS, message }, undefined, { issues: check.issues });
    }
    if (step.approval === true) {
      // A call that could never run is refused now rather than put in front of an approver.
      const identity = await this.identity(found);
      if (!identity.ok) return this.refuse(call, identity.failure);
      const routing = identity.identity?.runAs === 'caller' ? 'user' : 'policy';
      await this.commit((unit) => this.trail.suspend(unit, this.run, call, routing));
      return false;
    }
    return this.execute(call, found, undefined);
  }

  /** A step the trail already holds a call for (resumption). */
  private async known(row: ToolCall): Promise<boolean> {
    const call = specOf(row);
    switch (row.status) {
      case 'succeeded':
        this.outputs.set(call.stepId, JSON.parse(row.result ?? 'null') as JsonValue);
        return true;
      case 'failed':
        await this.settle('failed', this.stepFailure(call, { code: row.errorCode ?? FLOW_FAILURE.FLOW_FAILED, message: row.errorMessage ?? 'The call failed.' }));
        return false;
      case 'rejected':
        await this.settle('rejected', { code: FLOW_FAILURE.REJECTED, message: `The run approval for step "${call.stepId}" was rejected.` });
        return false;
      case 'awaiting_approval': {
        const approval = row.approvalId === null ? undefined : await this.deps.store.repos.approvals.approval(row.approvalId);
        if (approval?.status === 'approved') return this.execute(call, this.catalog.findTool(call.tool), row);
        if (approval?.status === 'rejected') {
          await this.commit(async (unit) => {
            await this.trail.callRejected(unit, this.run, row);
            await this.trail.settle(unit, this.run, 'rejected', { code: FLOW_FAILURE.REJECTED, message: `The run approval for step "${call.stepId}" was rejected.` });
          });
          return false;
        }
        // Still undecided: park again (the decision dispatches the run).
        await this.commit(async (unit) => void (await unit.tx.repos.executions.setStatus(this.execution.id, 'suspended', unit.now)));
        return false;
      }
      case 'running':
      case 'pending':
        if (row.readonly) return this.execute(call, this.catalog.findTool(call.tool), row);
        return this.refuse(call, { code: FLOW_FAILURE.INTERRUPTED, message: INTERRUPTED_MESSAGE }, row);
    }
  }

  /** Who the call runs as, read fresh: the grant may have expired while the run waited for approval. */
  private async identity(found: FoundTool): Promise<Identity> {
    if (found.source !== 'manifest') return { ok: true, identity: null };
    const execution = (await this.deps.store.repos.executions.execution(this.execution.id)) ?? this.execution;
    try {
      const resolved = await resolveCallIdentity(
        { integrations: this.deps.store.repos.integrations, grants: this.deps.grants, keyRing: this.deps.keyRing },
        {
          execution,
          orgId: this.session.orgId,
          domainId: this.session.domainId,
          integration: found.integration,
          binding: this.flow.definition.bindings[found.integration.id] ?? 'service',
          now: this.deps.clock.now(),
        },
      );
      return resolved.ok ? { ok: true, identity: resolved.identity } : { ok: false, failure: { code: resolved.code, message: resolved.message } };
    } catch (error) {
      if (!isVaultError(error)) throw error;
      return { ok: false, failure: { code: FLOW_FAILURE.CREDENTIAL_UNAVAILABLE, message: 'The credential for this call could not be opened.' } };
    }
  }

  private async execute(call: CallSpec, found: FoundTool | undefined, existing: ToolCall | undefined): Promise<boolean> {
    if (found === undefined || !this.deps.executor.available(found)) {
      return this.refuse(call, { code: FLOW_FAILURE.UNKNOWN_TOOL, message: `"${call.tool}" is not available to this flow.` }, existing);
    }
    const identity = await this.identity(found);
    if (!identity.ok) return this.refuse(call, identity.failure, existing);
    const startedAt = this.deps.clock.now();
    const row = await this.commit((unit) => this.trail.callStarted(unit, this.run, call, identity.identity?.runAs ?? null, existing));
    const result = await this.invoke(found, call, identity.identity);
    // Shutting down: leave the row `running`; the next pick-up repeats it if readonly, else fails it INTERRUPTED.
    if (this.signal.aborted) return false;
    await this.commit(async (unit) => {
      await this.trail.callFinished(unit, this.run, row, result, startedAt);
      if (!result.ok) await this.trail.settle(unit, this.run, 'failed', this.stepFailure(call, result));
    });
    if (!result.ok) return false;
    this.outputs.set(call.stepId, stored(result.output));
    return true;
  }

  /** A tool that throws (a bug, not an upstream answer) is an ordinary failed call; the reason goes to the log only. */
  private async invoke(found: FoundTool, call: CallSpec, identity: ToolIdentity | null): Promise<ToolResult> {
    try {
      return await this.deps.executor.execute({ found, args: call.args, identity, scope: this.toolScope, signal: this.signal });
    } catch (error) {
      this.deps.logger.error({ executionId: this.execution.id, err: error instanceof Error ? error.name : typeof error }, 'flow tool call threw');
      return { ok: false, code: 'UPSTREAM_UNAVAILABLE', message: 'The tool failed unexpectedly.' };
    }
  }
}

/** Runs (or resumes) one queued flow execution until it settles, parks on a run approval, or `signal` aborts. */
export async function runFlowExecution(deps: FlowRunnerDeps, queued: QueuedExecution, signal: AbortSignal): Promise<void> {
  const { repos } = deps.store;
  const execution = await repos.executions.execution(queued.executionId);
  if (execution === undefined || !['queued', 'resume_queued', 'running'].includes(execution.status)) return;
  const session = await repos.sessions.session(execution.sessionId);
  if (session === undefined) return;
  const run: RunRef = { orgId: session.orgId, sessionId: session.id, executionId: execution.id, initiatedBy: execution.createdBy };
  const settleFailed = (failure: RecordedFailure) =>
    deps.trail.commit(session.id, async (unit) => {
      if (execution.status === 'queued') await deps.trail.started(unit, run, false);
      await deps.trail.settle(unit, run, 'failed', failure);
    });

  const version = execution.revision ?? session.revision;
  const loaded = version === null ? { ok: false as const, message: 'The run is not pinned to a flow version.' } : await deps.versions.load(session.automationId, version);
  if (!loaded.ok) return void (await settleFailed({ code: FLOW_FAILURE.FLOW_DEFINITION_INVALID, message: loaded.message }));

  const input = execution.input as JsonValue;
  // Admission validated the input already; checked again before anything runs, for starts that bypassed it.
  const check = deps.validator.validate(loaded.flow.definition.inputs, input);
  if (!check.ok) return void (await settleFailed({ code: FLOW_FAILURE.INVALID_INPUT, message: `The input does not match the flow's inputs: ${formatIssues(check.issues)}` }));

  await new FlowRun(deps, session, execution, loaded.flow, await deps.catalogFor(session.orgId), input, signal).start();
}
