// An authenticated read: key lookup (hash, SQLite, rate-limit bucket) plus a small JSON reply, against bare uWS.
import type { HttpScenario, RunningServer } from '../scenario.js';

export interface AuthReadOptions {
  /** A GET route behind the `sv_` key. */
  path: string;
  /**
   * Status a valid key gets. Prefer a 200 route: on key routes a bad key is the same uniform 404 as an
   * unknown id (spec, Authentication), so a 404 route cannot show that the key was accepted.
   */
  expectedStatus: number;
}

export function authReadScenario({ path, expectedStatus }: AuthReadOptions): HttpScenario {
  const keyOf = (server: RunningServer): string => {
    if (!server.ready.apiKey) throw new Error(`bench server ${server.name} reported no apiKey`);
    return server.ready.apiKey;
  };
  return {
    kind: 'http',
    name: `auth-read ${path}`,
    target: { server: 'switchyard', request: (server) => ({ path, expectedStatus, headers: { authorization: `Bearer ${keyOf(server)}` } }) },
    // A header as long as a real key (32-char body + 6-char checksum): the baseline reads as many bytes.
    baseline: { server: 'baseline-uws', request: () => ({ path, headers: { authorization: `Bearer sv_${'x'.repeat(38)}` } }) },
  };
}

export const authReadMeScenario = authReadScenario({ path: '/api/v1/me', expectedStatus: 200 });
