// Every route group, in one list; a feature adds its group with one line here.
import type { Services } from '../../runtime/services.js';
import type { HttpMetrics } from '../metrics.js';
import type { Route } from '../types.js';
import { consoleRoutes } from './console.route.js';
import { healthRoutes } from './health.route.js';
import { meRoutes } from './me.route.js';
import { openApiRoute } from './openapi.route.js';

export function allRoutes(metrics: HttpMetrics): Route<Services>[] {
  const routes: Route<Services>[] = [...healthRoutes(metrics), ...consoleRoutes, ...meRoutes];
  routes.push(openApiRoute(() => routes));
  return routes;
}
