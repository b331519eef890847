// Agent draft/published revision chart: spec "States and transitions" (Agent rows) and Versioning rule 2.
import { assign, emit, setup } from 'xstate';
import type { SpecTableRow } from './spec-row.js';

/** Bump when a persisted snapshot of an older version can no longer be restored as is. */
export const MACHINE_VERSION = 1;

/** One problem the procedure verifier reported; the runtime returns these as 422 `details.findings`. */
export type PublishFinding = Readonly<Record<string, unknown>>;

export interface AgentRevisionInput {
  readonly agentId: string;
}

export interface AgentRevisionContext {
  readonly agentId: string;
  /** Revision that runs serve; only a clean publish moves it (Versioning rule 2). */
  readonly publishedRevision: number | null;
  /** Revisions created so far; revisions are immutable, so this only grows. */
  readonly revisionCount: number;
  readonly publishedAt: number | null;
  readonly draftUpdatedAt: number | null;
}

export type AgentRevisionEvent =
  | { readonly type: 'PUBLISH'; readonly now: number; readonly findings: readonly PublishFinding[] }
  // The runtime validates the PATCH body (spec: "any valid body") before sending this.
  | { readonly type: 'PATCH_SETUP'; readonly now: number };

/** Effects for the runtime: persist the revision and plan its bindings, answer 422, persist the draft. */
export type AgentRevisionEmitted =
  | { readonly type: 'revision.published'; readonly agentId: string; readonly revision: number; readonly at: number }
  | { readonly type: 'publish.refused'; readonly agentId: string; readonly findings: readonly PublishFinding[] }
  | { readonly type: 'draft.updated'; readonly agentId: string; readonly at: number };

export const agentRevisionMachine = setup({
  types: {
    input: {} as AgentRevisionInput,
    context: {} as AgentRevisionContext,
    events: {} as AgentRevisionEvent,
    emitted: {} as AgentRevisionEmitted,
  },
  guards: {
    verifierClean: ({ event }) => event.type === 'PUBLISH' && event.findings.length === 0,
    verifierFoundProblems: ({ event }) => event.type === 'PUBLISH' && event.findings.length > 0,
  },
  actions: {
    createRevision: assign(({ context, event }) => ({
      revisionCount: context.revisionCount + 1,
      publishedRevision: context.revisionCount + 1,
      publishedAt: event.now,
    })),
    // Runs after createRevision, so context already holds the new revision number.
    announceRevision: emit(({ context, event }) => ({
      type: 'revision.published' as const,
      agentId: context.agentId,
      revision: context.revisionCount,
      at: event.now,
    })),
    refuseWithFindings: emit(({ context, event }) => ({
      type: 'publish.refused' as const,
      agentId: context.agentId,
      findings: event.type === 'PUBLISH' ? event.findings : [],
    })),
    // Deliberately leaves publishedRevision alone: draft edits never move the published pointer.
    updateDraft: assign(({ event }) => ({ draftUpdatedAt: event.now })),
    announceDraft: emit(({ context, event }) => ({
      type: 'draft.updated' as const,
      agentId: context.agentId,
      at: event.now,
    })),
  },
}).createMachine({
  id: 'agent-revision',
  initial: 'draft',
  context: ({ input }) => ({
    agentId: input.agentId,
    publishedRevision: null,
    revisionCount: 0,
    publishedAt: null,
    draftUpdatedAt: null,
  }),
  states: {
    draft: {
      description: 'Setup has edits that no revision holds yet (or nothing was ever published).',
      on: {
        PUBLISH: [
          { guard: 'verifierClean', target: 'published', actions: ['createRevision', 'announceRevision'] },
          { guard: 'verifierFoundProblems', actions: 'refuseWithFindings' },
        ],
        PATCH_SETUP: { actions: ['updateDraft', 'announceDraft'] },
      },
    },
    published: {
      description: 'Setup equals the published revision, which runs use.',
      on: {
        PUBLISH: [
          { guard: 'verifierClean', target: 'published', actions: ['createRevision', 'announceRevision'] },
          { guard: 'verifierFoundProblems', actions: 'refuseWithFindings' },
        ],
        PATCH_SETUP: { target: 'draft', actions: ['updateDraft', 'announceDraft'] },
      },
    },
  },
});

const PUBLISH_CLEAN = 'Agent draft | POST publish | procedure verifier finds no problems';
const PUBLISH_FINDINGS = 'Agent draft | POST publish | verifier finds problems';
const PATCH_SETUP = 'Agent draft | PATCH setup | any valid body';

export const SPEC_ROWS: readonly SpecTableRow[] = [
  { source: 'draft', event: 'PUBLISH', guard: 'verifierClean', target: 'published', specRow: PUBLISH_CLEAN },
  { source: 'draft', event: 'PUBLISH', guard: 'verifierFoundProblems', target: 'draft', specRow: PUBLISH_FINDINGS },
  { source: 'draft', event: 'PATCH_SETUP', target: 'draft', specRow: PATCH_SETUP },
  {
    source: 'published', event: 'PUBLISH', guard: 'verifierClean', target: 'published',
    extension: 'publishing again verifies and snapshots the current draft as a new revision (bindings are replanned at publish time), as from draft',
  },
  {
    source: 'published', event: 'PUBLISH', guard: 'verifierFoundProblems', target: 'published',
    extension: 'a re-publish the verifier refuses answers 422 and leaves the published revision serving',
  },
  {
    source: 'published', event: 'PATCH_SETUP', target: 'draft',
    extension: 'editing a published agent makes its setup a draft again; publishedRevision does not move (Versioning rule 2)',
  },
];
