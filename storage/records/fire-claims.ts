// Domain records for fire idempotency claims, kept on their run (storage/repos/fire-claims.repo.ts maps them).

/** A stored claim in the shape the idempotency-claim machine restores (only completed claims are stored). */
export interface FireClaim {
  /** The key owner's organization: the same key in another organization is another claim. */
  scope: string;
  key: string;
  /** Keyed HMAC of the request (never the request itself: it may carry caller credentials). */
  fingerprint: Buffer;
  state: 'completed';
  statusCode: number;
  /** JSON text of the original response body (ids only), kept as stored: a replay answers these bytes. */
  response: string;
  runId: string;
  /** When the claim completed (its run was accepted). */
  leaseUntil: number;
  createdAt: number;
  expiresAt: number;
}

/** The claim a keyed run is inserted with (storage/records/trigger-runs.ts `NewTriggerRun`). */
export interface NewClaim {
  key: string;
  fingerprint: Buffer;
  /** JSON text of the 202 body, stored verbatim. */
  response: string;
  expiresAt: number;
}
