// Worker approvals: what a named worker may decide, and deciding it through the same services as the personal-key routes.
/*
 * A worker lease acts as the mapped person (runtime/partners/partner-credentials.ts rereads the mapping on every
 * call). The list holds the pending approvals of that organization the person can see (session visibility) and
 * may decide (the domain's current approval policy, or the initiator of a user-routed call or confirmation):
 * exactly what the decide routes would accept. Decisions go to the sessions runtime's approval service (turn
 * approvals) and the flow runtime's run approvals: no approval rule lives here.
 */
import * as z from 'zod';
import type { Approval } from '../../storage/records/approvals.js';
import type { Storage } from '../../storage/port/storage.js';
import type { LeasePrincipal } from '../auth/principal.js';
import { toIso } from '../clock.js';
import { notFound } from '../errors.js';
import { redactCredentialMaterial } from '../events/index.js';
import { mayDecide } from '../sessions/approval-access.js';
import type { DecisionRequest } from '../sessions/approval.service.js';
import { canView, type Caller } from '../sessions/session-access.js';

export const WORKER_APPROVALS_PAGE = Object.freeze({ defaultLimit: 50, maxLimit: 100 });

/** `?limit=&offset=`: limit 1-100 (default 50), offset from 0 (default 0). */
export const workerApprovalsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(WORKER_APPROVALS_PAGE.maxLimit).default(WORKER_APPROVALS_PAGE.defaultLimit),
  offset: z.coerce.number().int().min(0).default(0),
});

export interface WorkerApprovalItem {
  approvalId: string;
  /** `turn`: decide at /worker/approvals/sessions/:sessionId; `run`: at /worker/approvals/runs/:runId. */
  kind: 'turn' | 'run' | 'confirmation';
  sessionId: string;
  /** For run approvals: the flow run's id (its session id, as a fire answer names it). */
  runId: string | null;
  executionId: string;
  automationId: string;
  automationName: string;
  domainId: string;
  toolName: string | null;
  args: unknown;
  requestedAt: string;
}

export interface WorkerApprovalsPage {
  approvals: WorkerApprovalItem[];
  limit: number;
  offset: number;
  /** How many approvals the worker may decide in all. */
  total: number;
}

export interface TurnDecider {
  decide(caller: Caller, sessionId: string, request: DecisionRequest): Promise<{ ok: true; approvalId: string; decision: 'approved' | 'rejected' }>;
}

export interface RunDecider {
  decide(
    caller: Caller,
    request: { runId: string; decision: 'approved' | 'rejected'; comment?: string | null; approvalId?: string },
  ): Promise<{ ok: true; approvalId: string; decision: 'approved' | 'rejected' }>;
}

export interface WorkerApprovalsService {
  list(lease: LeasePrincipal, page: { limit: number; offset: number }): Promise<WorkerApprovalsPage>;
  decideTurn(lease: LeasePrincipal, sessionId: string, request: DecisionRequest): ReturnType<TurnDecider['decide']>;
  decideRun(lease: LeasePrincipal, runId: string, request: DecisionRequest): ReturnType<RunDecider['decide']>;
}

/** The person a worker lease acts as; app leases name nobody, so they see and decide nothing. */
export function workerCaller(lease: LeasePrincipal): Caller {
  if (lease.leaseKind !== 'worker' || lease.userId === null) throw notFound();
  return { userId: lease.userId, orgId: lease.orgId };
}

export function createWorkerApprovalsService(deps: {
  store: Pick<Storage, 'repos'>;
  turns: TurnDecider;
  /** The flow runtime's run approvals. */
  runs: RunDecider;
}): WorkerApprovalsService {
  const { repos } = deps.store;

  function item(approval: Approval, automation: { id: string; name: string; kind: string }, domainId: string): WorkerApprovalItem {
    return {
      approvalId: approval.id,
      kind: approval.kind,
      sessionId: approval.sessionId,
      runId: approval.kind === 'run' ? approval.sessionId : null,
      executionId: approval.executionId,
      automationId: automation.id,
      automationName: automation.name,
      domainId,
      toolName: approval.tool,
      args: redactCredentialMaterial(approval.args ?? {}),
      requestedAt: toIso(approval.createdAt),
    };
  }

  return {
    async list(lease, page) {
      const caller = workerCaller(lease);
      const visible: WorkerApprovalItem[] = [];
      for (const approval of repos.approvals.pendingOfOrganization(caller.orgId)) {
        const session = repos.sessions.session(approval.sessionId);
        // canView and mayDecide (sessions/) read storage now: awaited, so a refusal really filters.
        if (session === undefined || !(await canView(repos, caller, session)) || !(await mayDecide(repos.tenancy, caller, approval, session.domainId))) continue;
        const automation = repos.automations.automation(session.automationId);
        if (automation === undefined) continue;
        visible.push(item(approval, automation, session.domainId));
      }
      return { approvals: visible.slice(page.offset, page.offset + page.limit), limit: page.limit, offset: page.offset, total: visible.length };
    },
    decideTurn: (lease, sessionId, request) => deps.turns.decide(workerCaller(lease), sessionId, request),
    decideRun: (lease, runId, request) =>
      deps.runs.decide(workerCaller(lease), { runId, decision: request.decision, comment: request.comment, approvalId: request.approvalId }),
  };
}
