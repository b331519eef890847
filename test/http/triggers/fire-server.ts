// A real service with the fire workspace applied (crm pointed at a recording loopback upstream) and fire/run helpers.
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { applyManifest } from '../../../runtime/manifest/apply.js';
import type { ServiceConfig } from '../../../runtime/config.js';
import { fireWorkspace } from '../../helpers/fire-workspace.js';
import { bearer, call, type Answer } from '../../helpers/http.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { startRecordingUpstream, type RecordingUpstream } from '../../runtime/tools/recording-upstream.js';
import { crmResponder } from '../sessions/conversation-fixture.js';

export interface FireServer {
  server: TestServer;
  upstream: RecordingUpstream;
  refs: Record<string, string>;
  key(user: string): string;
  fire(user: string, json: unknown, headers?: Record<string, string>): Promise<Answer>;
  runs(user: string, triggerRef: string, query?: string): Promise<Answer>;
  run(user: string, triggerRef: string, runId: string): Promise<Answer>;
  /** Waits until every session queue is idle (the dispatcher says when; no sleeping). */
  settle(): Promise<void>;
  /** Writes out the sessions accepted fires recorded on their run rows, as any read route does first (materializer). */
  written(): Promise<void>;
}

export async function startFireServer(
  t: { teardown(fn: () => unknown): void },
  options: { config?: Partial<ServiceConfig>; dbPath?: string } = {},
): Promise<FireServer> {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  upstream.respond(crmResponder);
  const server = await startTestServer(t, { config: options.config, dbPath: options.dbPath });
  const { refs } = await applyManifest(server.service.store, fireWorkspace({ crmBaseUrl: upstream.baseUrl }), {
    clock: server.clock,
    keyRing: server.service.services.keyRing,
  });
  const key = (user: string) => refs[`${user}-key`] ?? user;
  const base = `${server.url}/api/v1`;
  return {
    server,
    upstream,
    refs,
    key,
    fire: (user, json, headers = {}) => call(`${base}/triggers/fire`, { method: 'POST', headers: { ...bearer(key(user)), ...headers }, json }),
    runs: (user, triggerRef, query = '') => call(`${base}/triggers/${refs[triggerRef] ?? triggerRef}/runs${query}`, { headers: bearer(key(user)) }),
    run: (user, triggerRef, runId) => call(`${base}/triggers/${refs[triggerRef] ?? triggerRef}/runs/${runId}`, { headers: bearer(key(user)) }),
    written: () => server.service.services.sessions.materializer.catchUp(),
    async settle() {
      // The fire route dispatches from setImmediate after its reply is written; a client in this process can read
      // that reply in the same poll phase, so let the check phase run before asking the dispatcher.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await server.service.services.sessions.dispatcher.idle();
    },
  };
}

/** A POST with raw header lines (fetch folds a repeated header into one value; node:http sends each array item). */
export function rawPost(url: string, headers: OutgoingHttpHeaders, body: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
