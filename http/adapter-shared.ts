// What both HTTP adapters share: request ids, the client address, reply bodies and the 413 reply.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { AppError } from '../runtime/errors.js';
import { errorReply } from './error-reply.js';
import type { JsonReply } from './types.js';

export type AdapterName = 'uws' | 'node';

/** A caller's X-Request-Id when it is short and plain (it reaches logs), else a fresh UUID. */
export function requestIdOf(headers: Record<string, string>): string {
  const given = headers['x-request-id'];
  return given && /^[\w.:-]{1,64}$/.test(given) ? given : randomUUID();
}

/** The first X-Forwarded-For hop only when a trusted proxy sets it, else the socket's peer. */
export function clientIpOf(headers: Record<string, string>, peer: string, trustProxy: boolean): string {
  const forwardedFor = trustProxy ? headers['x-forwarded-for']?.split(',')[0]?.trim() : undefined;
  return forwardedFor || peer;
}

export const isSecure = (headers: Record<string, string>, trustProxy: boolean): boolean => trustProxy && headers['x-forwarded-proto'] === 'https';

export const statusLine = (status: number): string => `${status} ${STATUS_CODES[status] ?? ''}`.trim();

/** The bytes of a JSON reply and its headers (content-type defaults to JSON when there is a body). */
export function replyPayload(reply: JsonReply): { body: string | Buffer; headers: Record<string, string> } {
  const body =
    reply.body === undefined ? '' : Buffer.isBuffer(reply.body) || typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  const headers = reply.headers ?? {};
  if (reply.body !== undefined && !headers['content-type']) return { body, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } };
  return { body, headers };
}

export function tooLarge(limit: number): JsonReply {
  return errorReply(new AppError('PAYLOAD_TOO_LARGE', `The request body exceeds ${limit} bytes.`, { limitBytes: limit })).reply;
}

/** Declared Content-Length over the route's limit: refuse before reading a byte. */
export function declaredTooLarge(headers: Record<string, string>, limit: number | null): boolean {
  return limit !== null && Number(headers['content-length'] ?? '0') > limit;
}
