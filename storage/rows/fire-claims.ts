// One row mapping for fire claims (the claim columns of trigger_runs, selected under these names), both drivers.
import type { FireClaim } from '../records/fire-claims.js';

/** What both drivers' `get` selects; no column kind differs between the engines. */
export interface FireClaimRow {
  scope: string;
  key: string;
  fingerprint: Buffer;
  state: 'completed';
  status_code: number;
  /** JSON text of the response body, passed through as stored (text on both engines: a replay sends these bytes). */
  response: string;
  run_id: string;
  lease_until: number;
  created_at: number;
  expires_at: number;
}

export const claimFromRow = (r: FireClaimRow): FireClaim => ({
  scope: r.scope,
  key: r.key,
  fingerprint: r.fingerprint,
  state: r.state,
  statusCode: r.status_code,
  response: r.response,
  runId: r.run_id,
  leaseUntil: r.lease_until,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

/** The projection of trigger_runs both drivers read a claim through (a claim is always completed and answered 202). */
export const CLAIM_COLUMNS = `org_id AS scope, claim_key AS key, claim_fingerprint AS fingerprint, 'completed' AS state, 202 AS status_code,
  claim_response AS response, id AS run_id, created_at AS lease_until, created_at, claim_expires_at AS expires_at`;

/** Gives a claim's key up; the run stays in Run history. */
export const CLEAR_CLAIM = 'claim_key = NULL, claim_fingerprint = NULL, claim_response = NULL, claim_expires_at = NULL';
