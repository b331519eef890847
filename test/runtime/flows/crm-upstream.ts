// A loopback CRM speaking the example integration's wire format: GET/PATCH /contacts/{id}, with requests that can be held.
import type { ServerResponse } from 'node:http';
import { startRecordingUpstream, type RecordedRequest, type RecordingUpstream } from '../tools/recording-upstream.js';

export interface Contact {
  id: string;
  name: string;
  tier: 'free' | 'pro' | 'enterprise';
  [key: string]: unknown;
}

export interface CrmUpstream {
  readonly upstream: RecordingUpstream;
  readonly baseUrl: string;
  readonly contacts: Map<string, Contact>;
  /** Requests with this method are recorded but left unanswered (a call in flight) until `release`. */
  hold(method: string): void;
  /** Answers what was held (if its client is still there) and stops holding. */
  release(): void;
  requests(method?: string): RecordedRequest[];
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startCrm(contacts: Contact[]): Promise<CrmUpstream> {
  const upstream = await startRecordingUpstream();
  const byId = new Map(contacts.map((c) => [c.id, { ...c }]));
  let held: string | null = null;
  let waiting: Array<() => void> = [];

  function answer(request: RecordedRequest, res: ServerResponse): void {
    const id = decodeURIComponent(request.pathname.replace(/^\/contacts\//, ''));
    const contact = byId.get(id);
    if (contact === undefined) return send(res, 404, { error: 'no such contact' });
    if (request.method === 'GET') return send(res, 200, contact);
    if (request.method === 'PATCH') {
      Object.assign(contact, JSON.parse(request.body || '{}'));
      return send(res, 200, contact);
    }
    send(res, 405, { error: 'method not allowed' });
  }

  upstream.respond((request, res) => {
    if (held === request.method) waiting.push(() => answer(request, res));
    else answer(request, res);
  });

  return {
    upstream,
    baseUrl: upstream.baseUrl,
    contacts: byId,
    hold(method) {
      held = method;
    },
    release() {
      held = null;
      const pending = waiting;
      waiting = [];
      for (const go of pending) go();
    },
    requests: (method) => upstream.received.filter((r) => method === undefined || r.method === method),
    close: () => upstream.close(),
  };
}
