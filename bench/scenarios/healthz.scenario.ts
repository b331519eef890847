// GET /healthz through the whole kernel (router, metrics, error envelope) against a bare uWS hello-world.
import type { HttpScenario } from '../scenario.js';

export const healthzScenario: HttpScenario = {
  kind: 'http',
  name: 'healthz',
  target: { server: 'switchyard', request: () => ({ path: '/healthz' }) },
  baseline: { server: 'baseline-uws', request: () => ({ path: '/healthz' }) },
};
