// Domain records of outbound webhooks: endpoints, deliveries, their attempt log and a run's subscriber states (storage/repos/webhooks.repo.ts).

export interface WebhookEndpoint {
  id: string;
  orgId: string;
  url: string;
  /** runtime/vault/sealed-secret.ts output of the signing secret; never the secret in clear. */
  secretSealed: Buffer;
  /** Event types the endpoint receives. */
  events: readonly string[];
  active: boolean;
  createdBy: string | null;
  createdAt: number;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventType: string;
  /** The signed JSON body as text, byte for byte: it is sent again verbatim (it carries ids and outcomes, never secrets). */
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  runId: string | null;
}

/** What one attempt changes on its delivery. */
export type WebhookDeliveryOutcome = Pick<WebhookDelivery, 'id' | 'status' | 'attempts' | 'nextAttemptAt' | 'lastStatus' | 'lastError' | 'updatedAt'>;

export interface WebhookAttempt {
  deliveryId: string;
  attempt: number;
  attemptedAt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** One subscriber of a run with the state of the session its firing started (its first execution). */
export interface RunSubscriberState {
  automationId: string;
  position: number;
  startStatus: 'started' | 'skipped' | 'failed';
  code: string | null;
  sessionId: string | null;
  executionStatus: string | null;
  errorCode: string | null;
  settledAt: number | null;
}

/** An organization with an active endpoint, and when its oldest one was registered. */
export interface OrganizationWithEndpoints {
  orgId: string;
  since: number;
}
