// Follow a session's event stream over fetch (SSE), resuming with Last-Event-ID after every disconnect.
/*
 * fetch, not EventSource: a browser's EventSource cannot send an Authorization header, and the stream answers a
 * bearer key. The SSE framing is parsed by eventsource-parser (the parser the `eventsource` package uses).
 * The service may close a slow consumer's stream on purpose (docs/events.md): reconnecting with the last `id:`
 * replays the gap, or sends `stream.reset` when it cannot; both reach the caller as events.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { SwitchyardHttpError, type SessionEventEnvelope } from './client.js';

export interface FollowSessionOptions {
  baseUrl: string;
  sessionId: string;
  /** Bearer credential (`sv_` key; a partner's `svp_`/`svt_` with `pathPrefix` and an X-Service-Subject header). */
  token: string;
  /** Resume after this seq: only later events are delivered (the snapshot still comes first). */
  lastEventId?: string | number;
  /** Ends the stream (the generator returns). */
  signal?: AbortSignal;
  /** Default `/api/v1`; `/api/partner/v1/organizations/<orgId>` for a partner's tenant call. */
  pathPrefix?: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /** Reconnects in a row that deliver no event before giving up (default 5). */
  maxReconnects?: number;
}

const RETRYABLE = new Set([429, 502, 503, 504]);

/**
 * Every event of the session, in `seq` order, across reconnects: `for await (const e of followSession(…))`.
 * Breaking out of the loop, or aborting `signal`, closes the connection. A 4xx (other than 429) throws a
 * SwitchyardHttpError.
 */
export async function* followSession(options: FollowSessionOptions): AsyncGenerator<SessionEventEnvelope, void, undefined> {
  const doFetch = options.fetch ?? fetch;
  const url = `${options.baseUrl.replace(/\/+$/, '')}${options.pathPrefix ?? '/api/v1'}/agents/sessions/${encodeURIComponent(options.sessionId)}/stream`;
  const maxReconnects = options.maxReconnects ?? 5;
  let lastEventId = options.lastEventId === undefined ? null : String(options.lastEventId);
  let retryMs = 2000;
  let idleReconnects = 0;
  while (!options.signal?.aborted) {
    const connection = new AbortController();
    const stop = () => connection.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    let delivered = false;
    try {
      const headers: Record<string, string> = { ...options.headers, accept: 'text/event-stream', authorization: `Bearer ${options.token}` };
      if (lastEventId !== null) headers['last-event-id'] = lastEventId;
      const response = await doFetch(url, { headers, signal: connection.signal });
      if (!response.ok) {
        if (!RETRYABLE.has(response.status)) throw await SwitchyardHttpError.of(response);
        retryMs = Math.max(retryMs, Number(response.headers.get('retry-after') ?? 0) * 1000);
        await response.body?.cancel();
      } else if (response.body) {
        for await (const message of sseMessages(response.body, (ms) => (retryMs = ms))) {
          if (message.id !== undefined) lastEventId = message.id;
          delivered = true;
          yield JSON.parse(message.data) as SessionEventEnvelope;
        }
      }
    } catch (error) {
      // The caller's abort ends the stream quietly; a refusal is the caller's to handle; a dropped connection is retried.
      if (options.signal?.aborted) return;
      if (error instanceof SwitchyardHttpError) throw error;
    } finally {
      options.signal?.removeEventListener('abort', stop);
      connection.abort();
    }
    idleReconnects = delivered ? 0 : idleReconnects + 1;
    if (idleReconnects > maxReconnects) throw new Error(`session stream: ${maxReconnects} reconnects in a row delivered nothing`);
    await sleep(retryMs, options.signal);
  }
}

/** Parsed SSE messages of one response body (comments such as `: hb` are dropped by the parser). */
async function* sseMessages(body: ReadableStream<Uint8Array>, onRetry: (ms: number) => void): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => pending.push(message), onRetry });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
      while (pending.length > 0) yield pending.shift()!;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
