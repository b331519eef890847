// The one place an error becomes the `{ error: { code, message, details? } }` envelope.
import { AppError, storageRefusal } from '../runtime/errors.js';
import type { JsonReply } from './types.js';

export function errorReply(error: unknown): { reply: JsonReply; unexpected: boolean } {
  if (error instanceof AppError) {
    // The runtime says how long to wait; naming it `Retry-After` is HTTP's business, so it happens here.
    const headers = error.retryAfterSeconds === undefined ? error.headers : { ...error.headers, 'retry-after': String(error.retryAfterSeconds) };
    return { reply: { status: error.status, headers, body: error.toBody() }, unexpected: false };
  }
  const refusal = storageRefusal(error);
  if (refusal !== null) return errorReply(refusal);
  // Anything else is our fault: answer a generic 500 and never leak the cause (it may hold a secret).
  const internal = new AppError('INTERNAL', 'The service hit an unexpected error.');
  return { reply: { status: 500, body: internal.toBody() }, unexpected: true };
}
