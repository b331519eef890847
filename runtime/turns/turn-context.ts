// Everything one run of one turn works from: session, pinned revision, bound tools, model, and its usage meter.
import type { Execution } from '../../storage/records/executions.js';
import type { Session } from '../../storage/records/sessions.js';
import { AppError } from '../errors.js';
import type { LanguageModelPort } from '../models/index.js';
import type { QueuedExecution } from './engine.js';
import { readRevision, type PublishedRevision } from './agent-revision.js';
import type { BudgetUsage } from './turn-budget.js';
import type { TurnDeps } from './turn-deps.js';
import { bindTurnTools, type TurnTools } from './turn-tools.js';
import type { ToolCallScope } from '../tools/tool-providers.js';

/** Counts what the turn used: steps and tokens as stored, running time since this run started on top of `run_ms`. */
export class UsageMeter {
  private checkpoint: number;
  private steps: number;
  private tokens: number;
  private ms: number;

  constructor(
    private readonly now: () => number,
    execution: Pick<Execution, 'stepsUsed' | 'tokensUsed' | 'runMs'>,
  ) {
    this.checkpoint = now();
    this.steps = execution.stepsUsed;
    this.tokens = execution.tokensUsed;
    this.ms = execution.runMs;
  }

  usage(): BudgetUsage {
    return { steps: this.steps, tokens: this.tokens, ms: this.ms + Math.max(0, this.now() - this.checkpoint) };
  }

  /** The increments to store now (counters move to the stored values). */
  take(step: { steps?: number; tokens?: number } = {}): { steps: number; tokens: number; ms: number } {
    const now = this.now();
    const ms = Math.max(0, now - this.checkpoint);
    this.checkpoint = now;
    this.ms += ms;
    this.steps += step.steps ?? 0;
    this.tokens += step.tokens ?? 0;
    return { steps: step.steps ?? 0, tokens: step.tokens ?? 0, ms };
  }
}

export interface TurnContext {
  readonly queued: QueuedExecution;
  readonly session: Session;
  /** As read when the run began (position, grant facts are re-read where they may change). */
  readonly execution: Execution;
  readonly revision: PublishedRevision;
  readonly tools: TurnTools;
  readonly scope: ToolCallScope;
  readonly model: LanguageModelPort;
  readonly meter: UsageMeter;
}

/** Throws AppError / ModelError when the turn cannot run at all (revision gone, model unknown or unconfigured). */
export async function loadTurnContext(deps: TurnDeps, queued: QueuedExecution): Promise<TurnContext> {
  const { repos } = deps.store;
  const execution = await repos.executions.execution(queued.executionId);
  const session = await repos.sessions.session(queued.sessionId);
  if (execution === undefined || session === undefined) throw new AppError('INTERNAL', `Execution ${queued.executionId} is gone.`);
  const pinned = execution.revision ?? session.revision;
  const revision = pinned === null ? undefined : await readRevision(repos.automations, session.automationId, pinned);
  if (revision === undefined) throw new AppError('INTERNAL', `The revision this turn was queued with no longer exists.`, { code: 'REVISION_MISSING' });
  const scope: ToolCallScope = {
    orgId: session.orgId,
    domainId: session.domainId,
    automationId: session.automationId,
    sessionId: session.id,
    executionId: execution.id,
  };
  const tools = await bindTurnTools(await deps.catalogFor(session.orgId), deps.providers, revision, scope);
  const model = deps.resolveModel(revision.setup.model);
  return { queued, session, execution, revision, tools, scope, model, meter: new UsageMeter(() => deps.clock.now(), execution) };
}
