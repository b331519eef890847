// Outbound webhook tests: the trigger server (loopback receivers allowed by config unless told otherwise) and a receiver.
import type { ServerResponse } from 'node:http';
import { ManualClock } from '../../../runtime/clock.js';
import { bearer, call, type Answer } from '../../helpers/http.js';
import { startTriggerServer, type TriggerServer } from '../../http/triggers-admin/trigger-fixture.js';
import { startRecordingUpstream, type RecordedRequest, type RecordingUpstream } from '../tools/recording-upstream.js';

export interface WebhookWorld extends TriggerServer {
  receiver: RecordingUpstream;
  /** Answers the receiver gives, in order; the last one repeats. */
  answerWith(...statuses: number[]): void;
  register(user: string, json: unknown): Promise<Answer>;
  list(user: string): Promise<Answer>;
  remove(user: string, id: string): Promise<Answer>;
  deliveries(user: string, id: string, query?: string): Promise<Answer>;
  fire(triggerRef: string, input?: unknown): Promise<Answer>;
  /** Webhook POSTs the receiver got, parsed. */
  posts(): Array<RecordedRequest & { json: any }>;
}

/** The contract's nightly schedule is paused, so that moving the clock fires only what a test fires. */
export function pauseNightly(manifest: any): void {
  manifest.organizations[0].triggers.find((x: any) => x.ref === 'nightly').active = false;
}

export async function startWebhookWorld(t: { teardown(fn: () => unknown): void }, options: { allowPrivate?: boolean } = {}): Promise<WebhookWorld> {
  const receiver = await startRecordingUpstream();
  t.teardown(() => receiver.close());
  // Near real time, so the standardwebhooks verifier (which reads Date.now()) accepts our webhook-timestamp.
  const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  const f = await startTriggerServer(t, { clock, config: { webhooksAllowPrivateNetworks: options.allowPrivate ?? true }, tweak: pauseNightly });
  let statuses = [200];
  let served = 0;
  receiver.respond((_request, res: ServerResponse) => {
    const status = statuses[Math.min(served, statuses.length - 1)]!;
    served += 1;
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(status < 300 ? 'ok' : 'nope');
  });
  const base = `${f.server.url}/api/v1`;
  const withCookie = async (user: string) => ({ cookie: await f.cookie(user) });
  return {
    ...f,
    receiver,
    answerWith(...next) {
      statuses = next;
      served = 0;
    },
    register: async (user, json) => call(`${base}/webhooks`, { method: 'POST', headers: await withCookie(user), json }),
    list: async (user) => call(`${base}/webhooks`, { headers: await withCookie(user) }),
    remove: async (user, id) => call(`${base}/webhooks/${id}`, { method: 'DELETE', headers: await withCookie(user) }),
    deliveries: async (user, id, query = '') => call(`${base}/webhooks/${id}/deliveries${query}`, { headers: await withCookie(user) }),
    fire: (triggerRef, input = { id: 'c-1' }) =>
      call(`${base}/triggers/fire`, { method: 'POST', headers: bearer(f.refs['bob-key']!), json: { triggerId: f.refs[triggerRef] ?? triggerRef, input } }),
    posts: () => receiver.received.map((r) => ({ ...r, json: JSON.parse(r.body) })),
  };
}
