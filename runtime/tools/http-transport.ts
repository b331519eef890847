// Owns one outbound HTTP exchange for tools: guarded dialling, abort, response size cap, no redirects followed.
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { injectTraceHeaders } from '../telemetry/tracing.js';
import { createGuardedLookup, DESTINATION_REFUSED, isPrivateIp } from './network-guard.js';

export interface TransportRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  readonly signal: AbortSignal;
  readonly maxResponseBytes: number;
  /** false: private/loopback destinations are refused, checked on the address actually dialled. */
  readonly allowPrivateNetworks: boolean;
  /**
   * A keep-alive agent of this request's scope (connection-pools.ts), only for a request that may be sent twice: a
   * pooled socket the upstream closed while idle fails what was written on it, and the request is then sent once
   * more on a fresh connection. Without one, a fresh connection serves this request alone.
   */
  readonly pooled?: http.Agent;
}

export interface TransportResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export type TransportFailureKind = 'refused_destination' | 'aborted' | 'too_large' | 'unavailable';

/** Messages are fixed per kind: a socket error's text can carry a URL, and URLs can carry secrets. */
const MESSAGES: Readonly<Record<TransportFailureKind, string>> = {
  refused_destination: 'The destination is a private or loopback address, which is not allowed.',
  aborted: 'The request was aborted.',
  too_large: 'The upstream response exceeded the size limit.',
  unavailable: 'The upstream service could not be reached.',
};

export class TransportError extends Error {
  constructor(readonly kind: TransportFailureKind, readonly causeCode?: string) {
    super(MESSAGES[kind]);
    this.name = 'TransportError';
  }
}

function failureOf(err: NodeJS.ErrnoException, signal: AbortSignal): TransportError {
  if (err instanceof TransportError) return err;
  if (err.code === DESTINATION_REFUSED) return new TransportError('refused_destination');
  if (signal.aborted || err.name === 'AbortError') return new TransportError('aborted');
  return new TransportError('unavailable', err.code);
}

/**
 * Sends one request. Redirects are returned, never followed: following one would carry the integration's
 * credential headers to wherever the upstream points (fetch only drops Authorization across origins, not
 * custom secret headers), so a caller that wants to follow must decide per hop.
 */
export async function sendHttp(request: TransportRequest): Promise<TransportResponse> {
  const { url, signal } = request;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TransportError('refused_destination');
  if (!request.allowPrivateNetworks && isPrivateIp(url.hostname)) throw new TransportError('refused_destination');
  if (signal.aborted) throw new TransportError('aborted');
  if (request.pooled === undefined) return exchange(request, false);
  try {
    return await exchange(request, request.pooled);
  } catch (error) {
    if (!(error instanceof StaleSocket)) throw error;
    return exchange(request, false);
  }
}

/** A pooled socket failed before any response byte: the upstream had closed it while it sat idle. */
class StaleSocket extends Error {}

const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE']);

/** One request on one connection: `agent` false dials a fresh one. */
function exchange(request: TransportRequest, agent: http.Agent | false): Promise<TransportResponse> {
  const { url, signal } = request;

  const headers: Record<string, string> = { ...request.headers };
  if (request.body !== undefined) headers['content-length'] = String(request.body.byteLength);
  // W3C trace context of the active span (a tool call or webhook attempt); nothing when tracing is off.
  injectTraceHeaders(headers);
  const client = url.protocol === 'https:' ? https : http;

  const options: http.RequestOptions = {
    protocol: url.protocol,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method: request.method,
    headers,
    signal,
    lookup: createGuardedLookup(request.allowPrivateNetworks),
    // A fresh connection, or the caller's pool of this policy and identity: a socket dialled under another policy or
    // for another identity must never be reused.
    agent,
  };

  return new Promise<TransportResponse>((resolve, reject) => {
    let settled = false;
    let responded = false;
    const fail = (err: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      req?.destroy();
      const stale = agent !== false && req?.reusedSocket === true && !responded && !signal.aborted && STALE_SOCKET_CODES.has(err.code ?? '');
      reject(stale ? new StaleSocket() : failureOf(err, signal));
    };
    const onResponse = (res: http.IncomingMessage) => {
      responded = true;
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > request.maxResponseBytes) return fail(new TransportError('too_large'));
      const chunks: Buffer[] = [];
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.byteLength;
        if (received > request.maxResponseBytes) return fail(new TransportError('too_large'));
        chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('aborted', () => fail(new TransportError('unavailable')));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, body: Buffer.concat(chunks) });
      });
    };
    let req: http.ClientRequest | undefined;
    try {
      req = client.request(options, onResponse);
    } catch (err) {
      // Invalid header names/values are refused synchronously by node:http before anything is sent.
      return fail(err as NodeJS.ErrnoException);
    }
    req.on('error', fail);
    req.end(request.body);
  });
}
