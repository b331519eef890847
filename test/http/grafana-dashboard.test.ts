// docs/grafana-dashboard.json: generated from its script, one row per signal group, and every series it queries exists.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { DASHBOARD_PATH, renderDashboard } from '../../scripts/gen-grafana-dashboard.js';
import { scrape } from '../helpers/prometheus.js';
import { startTestServer } from '../helpers/server.js';

const GROUPS = ['HTTP', 'Turns', 'Execution queue (admission)', 'Models', 'Tools', 'Fires and runs', 'Webhooks', 'Storage (group commit)', 'Actors and timers', 'Process'];

t.test('the committed dashboard is the generated one (npm run docs:dashboard) and valid JSON', async (t) => {
  const text = readFileSync(DASHBOARD_PATH, 'utf8');
  t.equal(text, renderDashboard(), 'regenerate with npm run docs:dashboard');
  const dashboard = JSON.parse(text);
  t.equal(dashboard.uid, 'switchyard');
  t.same(dashboard.panels.filter((p: any) => p.type === 'row').map((p: any) => p.title), GROUPS);
  t.same(new Set(dashboard.panels.map((p: any) => p.id)).size, dashboard.panels.length, 'panel ids are unique');
});

t.test('every metric the dashboard queries is declared by a real /metrics scrape', async (t) => {
  const server = await startTestServer(t);
  const families = (await scrape(server.url)).families;
  const dashboard = JSON.parse(readFileSync(DASHBOARD_PATH, 'utf8'));
  const queried = new Set<string>();
  let group = '';
  const panelsPerGroup = new Map<string, number>();
  for (const panel of dashboard.panels) {
    if (panel.type === 'row') {
      group = panel.title;
      continue;
    }
    panelsPerGroup.set(group, (panelsPerGroup.get(group) ?? 0) + 1);
    t.ok(panel.targets.length > 0, `${panel.title} has a query`);
    // Every selector carries the instance filter, so a metric name is whatever stands right before `{`.
    for (const target of panel.targets) for (const [, name] of target.expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)) queried.add(name);
  }
  for (const name of GROUPS) t.ok((panelsPerGroup.get(name) ?? 0) > 0, `${name} has panels`);
  t.ok(queried.size >= 30, `${queried.size} metrics queried`);
  for (const name of queried) {
    const family = families.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    t.ok(families.has(family), `${name} is exposed`);
  }
});
