// Lifecycle test helpers: PATCH / DELETE / POST with a user's key, and a real EventSource that records session.changed.
import { EventSource } from 'eventsource';
import { bearer, call, type Answer } from '../../helpers/http.js';
import type { Conversation } from './conversation-fixture.js';

export function send(c: Conversation, method: string, path: string, user: string, json?: unknown): Promise<Answer> {
  return call(`${c.server.url}/api/v1${path}`, { method, headers: bearer(c.key(user)), json });
}

export interface Watch {
  /** The `change` of every session.changed frame, in order. */
  changes: string[];
  /**
   * Resolves at the stream's first frame (its snapshot): a stream opened without Last-Event-ID carries what commits
   * after it subscribed, so changes made before this may not be seen.
   */
  ready: Promise<void>;
  until(test: (changes: string[]) => boolean): Promise<void>;
  /** Resolves when the EventSource gave up (the stream ended and a reconnect was refused). */
  closed: Promise<void>;
  close(): void;
}

/** A real EventSource client on the session stream, with the key sent through its fetch hook. */
export function watchChanges(c: Conversation, sessionId: string, user: string): Watch {
  const changes: string[] = [];
  const waiters: Array<{ test: (c: string[]) => boolean; resolve: () => void }> = [];
  const source = new EventSource(`${c.server.url}/api/v1/agents/sessions/${sessionId}/stream`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...bearer(c.key(user)) } }),
  });
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  let onClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) onClosed();
  };
  source.onmessage = (message) => {
    onReady();
    const { event } = JSON.parse(message.data) as { event: { type: string; change?: string } };
    if (event.type === 'session.changed' && event.change !== 'message_added') changes.push(event.change!);
    for (const w of [...waiters]) if (w.test(changes)) waiters.splice(waiters.indexOf(w), 1) && w.resolve();
  };
  return {
    changes,
    ready,
    closed,
    close: () => source.close(),
    until(test) {
      if (test(changes)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
  };
}
