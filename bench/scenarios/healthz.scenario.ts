// GET /healthz through the whole kernel (router, metrics, error envelope) against a bare hello-world, on each adapter.
import type { HttpScenario } from '../scenario.js';

export const healthzScenario: HttpScenario = {
  kind: 'http',
  name: 'healthz',
  target: { server: 'switchyard', request: () => ({ path: '/healthz' }) },
  baseline: { server: 'baseline-uws', request: () => ({ path: '/healthz' }) },
};

/** The same on node:http: the service's node adapter against a bare node:http server. */
export const healthzNodeScenario: HttpScenario = {
  kind: 'http',
  name: 'healthz node:http',
  target: { server: 'switchyard-node', request: () => ({ path: '/healthz' }) },
  baseline: { server: 'baseline-node', request: () => ({ path: '/healthz' }) },
};
