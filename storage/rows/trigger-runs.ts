// One row mapping for Run history (trigger_runs and its unnested results), both drivers (trigger-runs.repo.ts, each driver's).
import type { RowCodec } from '../row-codec.js';
import type {
  NewTriggerRun, PendingRun, RunOutcome, RunSource, SubscriberResult, SubscriberResultView, SubscriberStatus, TriggerRun,
} from '../records/trigger-runs.js';

export interface TriggerRunRow {
  id: string;
  trigger_id: string;
  org_id: string;
  source: RunSource;
  fired_by: string | null;
  outcome: RunOutcome;
  /** JSON array of integration ids: text on SQLite, parsed jsonb on PostgreSQL. */
  unused_credential_integrations: unknown;
  idempotency_key: string | null;
  created_at: number;
}

export interface PendingRunRow {
  id: string;
  /** JSON array: text on SQLite, parsed `json` on PostgreSQL. */
  pending: unknown;
}

/** One result unnested from trigger_runs.results, with its automation's name and kind. */
export interface SubscriberResultViewRow {
  run_id: string;
  automation_id: string;
  position: number;
  status: SubscriberStatus;
  code: string | null;
  reason: string | null;
  session_id: string | null;
  automation_name: string | null;
  automation_kind: string | null;
}

// The results column keeps this key order on SQLite (the readers unnest it by name, so jsonb's order does not matter).
const resultToJson = (r: SubscriberResult) => ({
  automationId: r.automationId, position: r.position, status: r.status, code: r.code, reason: r.reason, sessionId: r.sessionId,
});

export const resultViewFromRow = (r: SubscriberResultViewRow): SubscriberResultView => ({
  runId: r.run_id,
  automationId: r.automation_id,
  position: r.position,
  status: r.status,
  code: r.code,
  reason: r.reason,
  sessionId: r.session_id,
  automationName: r.automation_name,
  automationKind: r.automation_kind,
});

export function triggerRunRows(codec: RowCodec) {
  const array = (value: unknown): unknown[] => {
    const parsed = codec.json(value);
    return Array.isArray(parsed) ? parsed : [];
  };

  const fromRow = (r: TriggerRunRow): TriggerRun => ({
    id: r.id,
    triggerId: r.trigger_id,
    orgId: r.org_id,
    source: r.source,
    firedBy: r.fired_by,
    outcome: r.outcome,
    unusedCredentialIntegrations: array(r.unused_credential_integrations) as string[],
    idempotencyKey: r.idempotency_key,
    createdAt: r.created_at,
  });

  /** The insert's columns: the run, its results, pending starts and claim (the stored 202 is text on both engines). */
  const toRow = ({ results, claim, pending, ...run }: NewTriggerRun) => ({
    id: run.id,
    trigger_id: run.triggerId,
    org_id: run.orgId,
    source: run.source,
    fired_by: run.firedBy,
    outcome: run.outcome,
    unused_credential_integrations: codec.toJson(run.unusedCredentialIntegrations),
    idempotency_key: run.idempotencyKey,
    created_at: run.createdAt,
    results: codec.toJson(results.map(resultToJson)),
    pending: pending == null ? null : codec.toJson(pending),
    claim_key: claim?.key ?? null,
    claim_fingerprint: claim?.fingerprint ?? null,
    claim_response: claim?.response ?? null,
    claim_expires_at: claim?.expiresAt ?? null,
  });

  const pendingFromRow = (r: PendingRunRow): PendingRun => ({ id: r.id, pending: array(r.pending) });

  return { fromRow, toRow, pendingFromRow };
}
