// Takes one unanswered tool call of the current step to its outcome: refuse, gate for approval, run, or recover it.
import type { ToolCall } from '../../storage/records/executions.js';
import type { ToolCallRequest } from '../models/index.js';
import { isVaultError } from '../vault/index.js';
import { resolveCallIdentity } from './call-identity.js';
import type { AssistantPayload } from './conversation.js';
import type { TurnContext } from './turn-context.js';
import type { TurnDeps } from './turn-deps.js';
import type { TurnRecorder } from './turn-recorder.js';
import { failedOutcome, type CallOutcome, type CallResult } from './tool-outcome.js';
import { integrationOf, type BoundTool } from './turn-tools.js';

export type CallHandling = 'answered' | 'suspended' | 'stopped';

export interface CallRun {
  deps: TurnDeps;
  ctx: TurnContext;
  rec: TurnRecorder;
  /** Shutdown and wall-time deadline together: cancels the upstream call. */
  signal: AbortSignal;
  shutdown: AbortSignal;
}

type PendingCall = AssistantPayload['toolCalls'][number];

const INTERRUPTED_MESSAGE =
  'The service restarted while this call was in flight. It may have reached the upstream service, so it was not repeated.';

export async function handleCall(run: CallRun, call: PendingCall): Promise<CallHandling> {
  const { ctx, rec, deps } = run;
  const bound = ctx.tools.byName.get(call.toolName);
  const existing = await deps.store.repos.executions.toolCallByRef(ctx.execution.id, call.toolCallId);
  if (existing !== undefined) return continueCall(run, call, existing, bound);

  if (call.invalid !== undefined || bound === undefined) {
    const outcome = call.invalid !== undefined
      ? failedOutcome('INVALID_TOOL_CALL', `The tool call could not be used: ${call.invalid}`)
      : failedOutcome('UNKNOWN_TOOL', `"${call.toolName}" is not a tool this agent can use.`);
    await rec.refuse(call, bound ? integrationOf(call.toolName) : null, outcome);
    return 'answered';
  }
  // Arguments are checked before approval and before any call: nobody approves, and no upstream sees, a malformed call.
  const check = deps.validator.validate(bound.tool.inputSchema, call.args);
  if (!check.ok) {
    const result = { ok: false as const, code: 'INVALID_ARGUMENTS' as const, message: `The arguments do not match the tool's input.`, issues: check.issues };
    await rec.refuse(call, integrationOf(call.toolName), { result, identity: null, durationMs: 0 });
    return 'answered';
  }
  if (ctx.revision.setup.approvalTools.includes(call.toolName)) {
    await rec.suspend(call, await gateOf(run, bound));
    return 'suspended';
  }
  const row = await rec.openCall(call, integrationOf(call.toolName), bound.readonly);
  return execute(run, call, row, bound, call.args);
}

/** A call this turn already knows: approved (run it), interrupted by a restart, or answered but not yet told. */
async function continueCall(run: CallRun, call: PendingCall, row: ToolCall, bound: BoundTool | undefined): Promise<CallHandling> {
  const { rec, deps, ctx } = run;
  if (row.status === 'awaiting_approval') {
    const approval = row.approvalId === null ? undefined : await deps.store.repos.approvals.approval(row.approvalId);
    if (approval?.status !== 'approved') return 'suspended';
    const decision = (await deps.turns.peek(ctx.execution.id))?.context.lastDecision;
    if (decision?.approvalId === approval.id && decision.gatedCallError !== null) {
      // Approval after the grant expired with no replacement: a failed tool result, never the organization's identity.
      const integrationId = row.integrationId ?? integrationOf(row.tool);
      const outcome = failedOutcome('CALLER_CREDENTIAL_EXPIRED', 'The caller credential expired before the call was approved.', {
        credentialFailure: { integrationId, code: 'CALLER_CREDENTIAL_EXPIRED' },
      });
      await rec.answer(row, call, outcome);
      return 'answered';
    }
    const edited = approval.edited;
    const args = (approval.editedArgs ?? row.args) as Record<string, unknown>;
    if (bound === undefined) {
      await rec.answer(row, call, failedOutcome('UNKNOWN_TOOL', `"${row.tool}" is no longer available to this agent.`));
      return 'answered';
    }
    return execute(run, call, await rec.startCall(row, args, edited), bound, args);
  }
  if (row.status === 'running' || row.status === 'pending') {
    // Boot recovery: a readonly call is safe to repeat; any other may have changed something upstream.
    if (bound !== undefined && row.readonly) {
      const args = row.args as Record<string, unknown>;
      return execute(run, call, await rec.startCall(row, args, row.edited), bound, args);
    }
    await rec.answer(row, call, failedOutcome('INTERRUPTED', INTERRUPTED_MESSAGE));
    return 'answered';
  }
  // A finished row always commits with its tool message, so this is a row another process left: never rerun it.
  await rec.answer(row, call, failedOutcome('INTERRUPTED', INTERRUPTED_MESSAGE));
  return 'answered';
}

/** Routing of the approval a gated call raises (docs/decisions.md "Who decides an approval"). */
async function gateOf(run: CallRun, bound: BoundTool): Promise<Parameters<TurnRecorder['suspend']>[1]> {
  const { ctx, deps } = run;
  const integrationId = integrationOf(bound.tool.name);
  const execution = (await deps.store.repos.executions.execution(ctx.execution.id)) ?? ctx.execution;
  const binding = ctx.revision.bindings.get(integrationId) ?? 'service';
  const held = binding !== 'service' && execution.grantIntegrationIds.includes(integrationId);
  return {
    integrationId,
    readonly: bound.readonly,
    routing: held ? 'user' : 'policy',
    kind: ctx.session.visibility === 'personal' ? 'confirmation' : 'turn',
    grantExpiresAt: held ? execution.grantExpiresAt : null,
  };
}

async function execute(run: CallRun, call: ToolCallRequest, row: ToolCall, bound: BoundTool, args: Record<string, unknown>): Promise<CallHandling> {
  const { deps, ctx, rec } = run;
  const startedAt = deps.clock.now();
  let outcome: CallOutcome;
  if (bound.source === 'provider') {
    const result = await guarded(run, () => bound.provider.execute({ toolName: bound.tool.name, args, scope: ctx.scope, signal: run.signal }));
    outcome = { result, identity: null, durationMs: deps.clock.now() - startedAt };
  } else {
    const integrationId = bound.integration.id;
    const execution = (await deps.store.repos.executions.execution(ctx.execution.id)) ?? ctx.execution;
    let identity;
    try {
      identity = await resolveCallIdentity(
        { integrations: deps.store.repos.integrations, grants: deps.grants, keyRing: deps.keyRing },
        { execution, orgId: ctx.session.orgId, domainId: ctx.session.domainId, integration: bound.integration, binding: ctx.revision.bindings.get(integrationId) ?? 'service', now: startedAt },
      );
    } catch (error) {
      if (!isVaultError(error)) throw error;
      identity = { ok: false as const, code: 'CREDENTIAL_UNAVAILABLE' as const, message: 'The credential for this call could not be opened.' };
    }
    if (!identity.ok) {
      const credentialFailure = identity.code === 'CALLER_CREDENTIAL_EXPIRED' || identity.code === 'CALLER_CREDENTIALS_REQUIRED' ? { integrationId, code: identity.code } : undefined;
      await rec.answer(row, call, failedOutcome(identity.code, identity.message, { credentialFailure }));
      return 'answered';
    }
    const ready = identity.identity;
    const result = await guarded(run, () => deps.http.execute({ integration: bound.integration, tool: bound.tool, args, identity: ready, signal: run.signal, orgId: ctx.session.orgId }));
    outcome = { result, identity: identity.identity.runAs, durationMs: deps.clock.now() - startedAt };
  }
  // Shutting down: leave the row `running` so the next boot decides (repeat if readonly, else INTERRUPTED).
  if (run.shutdown.aborted) return 'stopped';
  await rec.answer(row, call, outcome);
  return 'answered';
}

/** A tool that throws (a bug, not an upstream answer) is an ordinary failed call; the reason goes to the log only. */
async function guarded(run: CallRun, work: () => Promise<CallResult>): Promise<CallResult> {
  try {
    return await work();
  } catch (error) {
    run.deps.logger.error({ executionId: run.ctx.execution.id, err: error instanceof Error ? error.name : typeof error }, 'tool call threw');
    return { ok: false, code: 'TOOL_FAILED', message: 'The tool failed unexpectedly.' };
  }
}
