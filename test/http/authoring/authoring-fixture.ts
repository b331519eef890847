// Authoring tests' tenant: the contract workspace manifest applied to a real server, plus small API helpers.
import { applyManifest } from '../../../runtime/manifest/apply.js';
import type { DomainRole } from '../../../storage/repos/tenancy.repo.js';
import { bearer, call, type Answer } from '../../helpers/http.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { example } from '../../runtime/manifest/manifest-fixtures.js';

export interface AuthoringWorld {
  server: TestServer;
  /** Manifest ref -> id (or, for keys, the `sv_` secret). */
  refs: Record<string, string>;
  /** Calls `/api/v1/authoring<path>` with `secret` as the bearer credential. */
  as(secret: string): AuthoringClient;
  /** Gives `userRef` the role in domain `domainRef` (or removes it with null). */
  setDomainRole(domainRef: string, userRef: string, role: DomainRole | null): Promise<void>;
}

export interface AuthoringClient {
  get(path: string): Promise<Answer>;
  post(path: string, json?: unknown): Promise<Answer>;
  put(path: string, json: unknown): Promise<Answer>;
  patch(path: string, json: unknown): Promise<Answer>;
}

export async function startAuthoring(t: Parameters<typeof startTestServer>[0], edit?: (manifest: any) => void): Promise<AuthoringWorld> {
  const server = await startTestServer(t);
  const manifest = example();
  edit?.(manifest);
  const { refs } = await applyManifest(server.service.store, manifest, { clock: server.clock, keyRing: server.service.services.keyRing });
  const base = `${server.url}/api/v1/authoring`;
  return {
    server,
    refs,
    as(secret) {
      const headers = bearer(secret);
      return {
        get: (path) => call(`${base}${path}`, { headers }),
        post: (path, json) => call(`${base}${path}`, { method: 'POST', headers, ...(json === undefined ? {} : { json }) }),
        put: (path, json) => call(`${base}${path}`, { method: 'PUT', headers, json }),
        patch: (path, json) => call(`${base}${path}`, { method: 'PATCH', headers, json }),
      };
    },
    async setDomainRole(domainRef, userRef, role) {
      const [domainId, userId] = [refs[domainRef], refs[userRef]];
      await server.service.store.writer.submit(async ({ repos: { tenancy } }) => {
        if (role === null) await tenancy.removeDomainMember(domainId, userId);
        else await tenancy.setDomainRole(domainId, userId, role, server.clock.now());
      });
    },
  };
}

/** Signs in to the console and mints an `svu_` token through POST /auth/token, as a browser would. */
export async function userToken(server: TestServer, email: string, password: string): Promise<string> {
  const login = await call(`${server.url}/api/v1/console/login`, { method: 'POST', json: { email, password } });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  const issued = await call(`${server.url}/api/v1/auth/token`, { method: 'POST', headers: { cookie } });
  if (issued.status !== 200) throw new Error(`token not issued: ${issued.status} ${issued.text}`);
  return issued.json.token;
}
