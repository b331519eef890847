// Verify a Standard Webhooks delivery from the service and return its typed body.
import { Webhook } from 'standardwebhooks';
import type { RunCompletedWebhook } from './client.js';

type HeaderSource = Headers | Readonly<Record<string, string | string[] | undefined>>;

/** The three Standard Webhooks headers, from a fetch `Headers` or a Node `IncomingHttpHeaders`. */
function signatureHeaders(headers: HeaderSource): Record<string, string> {
  const read = (name: string): string => {
    if (headers instanceof Headers) return headers.get(name) ?? '';
    const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    return Array.isArray(value) ? value.join(' ') : (value ?? '');
  };
  return { 'webhook-id': read('webhook-id'), 'webhook-timestamp': read('webhook-timestamp'), 'webhook-signature': read('webhook-signature') };
}

/**
 * Checks the signature (HMAC-SHA256 with the `whsec_` secret the service returned when the endpoint was
 * registered) and the timestamp (within 5 minutes of this machine's clock) over the body exactly as received,
 * then parses it. Throws `WebhookVerificationError` (from `standardwebhooks`) when either fails. Deduplicate on
 * `webhook-id`: a retried delivery keeps its id.
 */
export function verifyWebhook(secret: string, rawBody: string | Uint8Array, headers: HeaderSource): RunCompletedWebhook {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  return new Webhook(secret).verify(body, signatureHeaders(headers)) as RunCompletedWebhook;
}

export { WebhookVerificationError } from 'standardwebhooks';
