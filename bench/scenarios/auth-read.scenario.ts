// An authenticated read: key lookup (hash, SQLite, rate-limit bucket) plus a small JSON reply, against a bare hello-world.
import type { HttpScenario, RunningServer } from '../scenario.js';

export interface AuthReadOptions {
  /** A GET route behind the `sv_` key. */
  path: string;
  /**
   * Status a valid key gets. Prefer a 200 route: on key routes a bad key is the same uniform 404 as an
   * unknown id (spec, Authentication), so a 404 route cannot show that the key was accepted.
   */
  expectedStatus: number;
  /** The service and baseline servers (default: switchyard on auto, bare uWS); a name suffix tells rows apart. */
  servers?: { target: string; baseline: string; suffix: string };
}

export function authReadScenario({ path, expectedStatus, servers = { target: 'switchyard', baseline: 'baseline-uws', suffix: '' } }: AuthReadOptions): HttpScenario {
  const keyOf = (server: RunningServer): string => {
    if (!server.ready.apiKey) throw new Error(`bench server ${server.name} reported no apiKey`);
    return server.ready.apiKey;
  };
  return {
    kind: 'http',
    name: `auth-read ${path}${servers.suffix}`,
    target: { server: servers.target, request: (server) => ({ path, expectedStatus, headers: { authorization: `Bearer ${keyOf(server)}` } }) },
    // A header as long as a real key (32-char body + 6-char checksum): the baseline reads as many bytes.
    baseline: { server: servers.baseline, request: () => ({ path, headers: { authorization: `Bearer sv_${'x'.repeat(38)}` } }) },
  };
}

export const authReadMeScenario = authReadScenario({ path: '/api/v1/me', expectedStatus: 200 });
export const authReadMeNodeScenario = authReadScenario({
  path: '/api/v1/me',
  expectedStatus: 200,
  servers: { target: 'switchyard-node', baseline: 'baseline-node', suffix: ' node:http' },
});
