// Owns one signed outbound webhook attempt: Standard Webhooks headers, guarded dialling, status or failure kind.
import { performance } from 'node:perf_hooks';
import { sendHttp, TransportError, type TransportFailureKind } from '../tools/http-transport.js';
import { signedHeaders } from './standard-webhooks.js';

export interface WebhookAttempt {
  readonly url: string;
  readonly secret: string;
  /** webhook-id: the delivery's id, the same on every retry so receivers can dedupe. */
  readonly messageId: string;
  readonly body: string;
  /** Epoch ms of the injected clock: the signed webhook-timestamp. */
  readonly now: number;
  readonly allowPrivateNetworks: boolean;
  readonly timeoutMs: number;
}

export interface AttemptResult {
  /** The receiver's HTTP status; null when no response arrived. */
  readonly statusCode: number | null;
  /** Why no response arrived (never a socket message: those can quote the URL). */
  readonly error: TransportFailureKind | null;
  readonly durationMs: number;
}

export type WebhookSend = (attempt: WebhookAttempt) => Promise<AttemptResult>;

/** Responses are read only to finish the exchange; anything past this is a failure, not stored. */
const MAX_RESPONSE_BYTES = 256 * 1024;

export const sendWebhook: WebhookSend = async (attempt) => {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const body = Buffer.from(attempt.body, 'utf8');
  try {
    const response = await sendHttp({
      url: new URL(attempt.url),
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Switchyard-Webhooks/1',
        ...signedHeaders(attempt.secret, attempt.messageId, attempt.now, attempt.body),
      },
      body,
      signal: AbortSignal.timeout(attempt.timeoutMs),
      maxResponseBytes: MAX_RESPONSE_BYTES,
      allowPrivateNetworks: attempt.allowPrivateNetworks,
    });
    return { statusCode: response.status, error: null, durationMs: elapsed() };
  } catch (error) {
    return { statusCode: null, error: error instanceof TransportError ? error.kind : 'unavailable', durationMs: elapsed() };
  }
};
