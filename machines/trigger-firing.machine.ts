// One trigger firing: accepted, fanned out to subscribers, recorded with per-subscriber results (spec Trigger, Trigger firing).
import { assign, emit, setup } from 'xstate';
import type { SpecTableRow } from './spec-row.js';

/** Bump when a persisted snapshot of an older version can no longer be restored as is. */
export const MACHINE_VERSION = 1;

/** What happened to one subscriber at start time: a session started, it was skipped (e.g. entitlement off), or its start failed. */
export type SubscriberOutcome = 'started' | 'skipped' | 'failed';
export type FiringOutcome = 'succeeded' | 'partial' | 'failed' | 'skipped';

export interface SubscriberResult {
  readonly outcome: SubscriberOutcome;
  /** Refusal or failure code, e.g. CALLER_CREDENTIALS_REQUIRED. */
  readonly code: string | null;
  readonly sessionId: string | null;
  readonly usedIntegrationIds: readonly string[];
  readonly reportedAt: number;
}

export interface TriggerFiringInput {
  readonly firingId: string;
  readonly triggerId: string;
  readonly acceptedAt: number;
  /** Integration ids the caller supplied credentials for (ids only, never material). */
  readonly suppliedIntegrationIds: readonly string[];
}

export interface TriggerFiringContext extends TriggerFiringInput {
  readonly subscriberIds: readonly string[];
  readonly results: Readonly<Record<string, SubscriberResult>>;
  readonly outcome: FiringOutcome | null;
  /** Supplied but used by no subscriber: recorded in Run history (spec Trigger). */
  readonly unusedIntegrationIds: readonly string[] | null;
  readonly recordedAt: number | null;
}

export type TriggerFiringEvent =
  | { readonly type: 'FAN_OUT'; readonly now: number; readonly subscriberIds: readonly string[] }
  | {
      readonly type: 'SUBSCRIBER_RESULT';
      readonly now: number;
      readonly subscriberId: string;
      readonly outcome: SubscriberOutcome;
      readonly code?: string;
      readonly sessionId?: string;
      readonly usedIntegrationIds?: readonly string[];
    };

/** Effect for the runtime: write the Run history entry. */
export type TriggerFiringEmitted = {
  readonly type: 'firing.recorded';
  readonly firingId: string;
  readonly triggerId: string;
  readonly outcome: FiringOutcome;
  readonly unusedIntegrationIds: readonly string[];
};

/**
 * Outcome rule (spec "Trigger": a firing whose subscribers disagree in outcome is recorded as partial):
 * no subscribers => skipped; all started => succeeded; all skipped => skipped; all failed => failed;
 * any disagreement (including skipped + failed with none started) => partial.
 */
export function firingOutcome(outcomes: readonly SubscriberOutcome[]): FiringOutcome {
  if (outcomes.length === 0) return 'skipped';
  if (outcomes.some((o) => o !== outcomes[0])) return 'partial';
  return outcomes[0] === 'started' ? 'succeeded' : outcomes[0];
}

function summarize(context: TriggerFiringContext): { outcome: FiringOutcome; unusedIntegrationIds: string[] } {
  const results = context.subscriberIds.map((id) => context.results[id]).filter((r) => r !== undefined);
  const used = new Set(results.flatMap((r) => r.usedIntegrationIds));
  return {
    outcome: firingOutcome(results.map((r) => r.outcome)),
    unusedIntegrationIds: context.suppliedIntegrationIds.filter((id) => !used.has(id)),
  };
}

function pendingIds(context: TriggerFiringContext): string[] {
  return context.subscriberIds.filter((id) => context.results[id] === undefined);
}

function isPendingResult(context: TriggerFiringContext, event: TriggerFiringEvent): boolean {
  return event.type === 'SUBSCRIBER_RESULT' && pendingIds(context).includes(event.subscriberId);
}

export const triggerFiringMachine = setup({
  types: {
    input: {} as TriggerFiringInput,
    context: {} as TriggerFiringContext,
    events: {} as TriggerFiringEvent,
    emitted: {} as TriggerFiringEmitted,
  },
  guards: {
    noSubscribers: ({ event }) => event.type === 'FAN_OUT' && event.subscriberIds.length === 0,
    hasSubscribers: ({ event }) => event.type === 'FAN_OUT' && event.subscriberIds.length > 0,
    // Unknown or already reported subscribers fail both guards: a duplicate report cannot change history.
    isLastPendingResult: ({ context, event }) => isPendingResult(context, event) && pendingIds(context).length === 1,
    isPendingResult: ({ context, event }) => isPendingResult(context, event),
  },
  actions: {
    recordSubscribers: assign(({ event }) => (event.type === 'FAN_OUT' ? { subscriberIds: [...new Set(event.subscriberIds)] } : {})),
    recordResult: assign(({ context, event }) => {
      if (event.type !== 'SUBSCRIBER_RESULT') return {};
      const result: SubscriberResult = {
        outcome: event.outcome,
        code: event.code ?? null,
        sessionId: event.sessionId ?? null,
        usedIntegrationIds: event.usedIntegrationIds ?? [],
        reportedAt: event.now,
      };
      return { results: { ...context.results, [event.subscriberId]: result } };
    }),
    recordOutcome: assign(({ context, event }) => ({ ...summarize(context), recordedAt: event.now })),
    announceRecorded: emit(({ context }) => ({
      type: 'firing.recorded' as const,
      firingId: context.firingId,
      triggerId: context.triggerId,
      ...summarize(context),
    })),
  },
}).createMachine({
  id: 'trigger-firing',
  initial: 'accepted',
  context: ({ input }) => ({
    ...input,
    subscriberIds: [],
    results: {},
    outcome: null,
    unusedIntegrationIds: null,
    recordedAt: null,
  }),
  states: {
    accepted: {
      description: 'The fire request passed validation, subscribers not yet resolved.',
      on: {
        FAN_OUT: [
          { guard: 'noSubscribers', target: 'recorded', actions: 'recordSubscribers' },
          { guard: 'hasSubscribers', target: 'fanningOut', actions: 'recordSubscribers' },
        ],
      },
    },
    fanningOut: {
      description: 'Waiting for one result per subscriber.',
      on: {
        SUBSCRIBER_RESULT: [
          { guard: 'isLastPendingResult', target: 'recorded', actions: 'recordResult' },
          { guard: 'isPendingResult', actions: 'recordResult' },
        ],
      },
    },
    recorded: {
      type: 'final',
      description: 'outcome: succeeded, partial, failed or skipped (firingOutcome)',
      entry: ['recordOutcome', 'announceRecorded'],
    },
  },
});

export const SPEC_ROWS: readonly SpecTableRow[] = [
  { source: 'accepted', event: 'FAN_OUT', guard: 'noSubscribers', target: 'recorded', extension: 'no subscribers: recorded as skipped, sessions: [] (Trigger firing rule 3)' },
  { source: 'accepted', event: 'FAN_OUT', guard: 'hasSubscribers', target: 'fanningOut', extension: 'one start per subscriber (Trigger firing rule 2)' },
  { source: 'fanningOut', event: 'SUBSCRIBER_RESULT', guard: 'isLastPendingResult', target: 'recorded', extension: 'all subscribers reported: the firing is recorded with per-subscriber results (spec Trigger)' },
  { source: 'fanningOut', event: 'SUBSCRIBER_RESULT', guard: 'isPendingResult', target: 'fanningOut', extension: 'one subscriber reported; others still pending (rule 4: other subscribers still start)' },
];
