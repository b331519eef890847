// Generates docs/grafana-dashboard.json (import into Grafana) from the panel list below: one row per signal group.
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const DASHBOARD_PATH = fileURLToPath(new URL('../docs/grafana-dashboard.json', import.meta.url));

interface PanelSpec {
  title: string;
  unit: string;
  /** PromQL, with `$sel` standing for the instance selector; legend after `|`. */
  queries: string[];
  description?: string;
}

const rate = (metric: string, by: string, extra = '') => `sum by (${by}) (rate(${metric}{$sel${extra}}[$__rate_interval]))|{{${by.split(',')[0]!.trim()}}}`;
const p = (q: number, metric: string, by = '') =>
  `histogram_quantile(${q}, sum by (le${by ? `, ${by}` : ''}) (rate(${metric}_bucket{$sel}[$__rate_interval])))|p${Math.round(q * 100)}${by ? ` {{${by}}}` : ''}`;

const GROUPS: Array<{ row: string; panels: PanelSpec[] }> = [
  {
    row: 'HTTP',
    panels: [
      { title: 'Requests by status', unit: 'reqps', queries: [rate('switchyard_http_requests_total', 'status')] },
      { title: 'Latency by route (p95)', unit: 's', queries: [p(0.95, 'switchyard_http_request_duration_seconds', 'route')] },
      { title: 'Open SSE streams', unit: 'short', queries: ['sum by (route) (switchyard_sse_streams_open{$sel})|{{route}}'] },
      { title: 'MCP sessions', unit: 'short', queries: ['sum(switchyard_mcp_sessions{$sel})|sessions'] },
    ],
  },
  {
    row: 'Turns',
    panels: [
      { title: 'Turns by outcome', unit: 'ops', queries: [rate('switchyard_turns_total', 'outcome'), 'sum(rate(switchyard_turns_started_total{$sel}[$__rate_interval]))|started'] },
      { title: 'Turn duration', unit: 's', queries: [p(0.5, 'switchyard_turn_duration_seconds'), p(0.95, 'switchyard_turn_duration_seconds'), p(0.99, 'switchyard_turn_duration_seconds')] },
      { title: 'Turn queue', unit: 'short', queries: ['sum by (status) (switchyard_executions_unsettled{$sel})|{{status}}'], description: 'Executions waiting (queued, resume_queued) or running.' },
      { title: 'Budget failures', unit: 'ops', queries: [rate('switchyard_turn_budget_failures_total', 'budget')] },
    ],
  },
  {
    row: 'Execution queue (admission)',
    panels: [
      {
        title: 'Queue depth and bound',
        unit: 'short',
        queries: ['sum(switchyard_execution_queue_depth{$sel})|queued', 'sum(switchyard_execution_queue_limit{$sel})|limit'],
        description: 'Executions accepted and not yet started, against the bound (drain rate x SWITCHYARD_QUEUE_LIMIT_SECONDS).',
      },
      { title: 'Drain rate', unit: 'ops', queries: ['sum(switchyard_execution_drain_rate{$sel})|measured', 'sum(rate(switchyard_executions_started_total{$sel}[$__rate_interval]))|started'] },
      { title: 'Refused (429 OVERLOADED)', unit: 'reqps', queries: ['sum(rate(switchyard_execution_refused_total{$sel}[$__rate_interval]))|refused'] },
    ],
  },
  {
    row: 'Models',
    panels: [
      { title: 'Model calls by provider and outcome', unit: 'ops', queries: ['sum by (provider, outcome) (rate(switchyard_model_calls_total{$sel}[$__rate_interval]))|{{provider}} {{outcome}}'] },
      { title: 'Tokens by provider', unit: 'short', queries: ['sum by (provider, direction) (rate(switchyard_model_tokens_total{$sel}[$__rate_interval]))|{{provider}} {{direction}}'] },
      { title: 'Model step latency (p95)', unit: 's', queries: [p(0.95, 'switchyard_model_call_duration_seconds', 'provider')] },
    ],
  },
  {
    row: 'Tools',
    panels: [
      { title: 'Tool calls by outcome and identity', unit: 'ops', queries: ['sum by (outcome, identity) (rate(switchyard_tool_calls_total{$sel}[$__rate_interval]))|{{outcome}} as {{identity}}'] },
      { title: 'Tool call failures by code', unit: 'ops', queries: [rate('switchyard_tool_calls_total', 'code', ', outcome!="succeeded"')] },
      { title: 'Tool call latency (p95)', unit: 's', queries: [p(0.95, 'switchyard_tool_call_duration_seconds', 'identity')] },
    ],
  },
  {
    row: 'Fires and runs',
    panels: [
      { title: 'Fires by source and result', unit: 'ops', queries: ['sum by (source, result) (rate(switchyard_trigger_fires_total{$sel}[$__rate_interval]))|{{source}} {{result}}'] },
      { title: 'Runs by source and outcome', unit: 'ops', queries: ['sum by (source, outcome) (rate(switchyard_trigger_runs_total{$sel}[$__rate_interval]))|{{source}} {{outcome}}'] },
    ],
  },
  {
    row: 'Webhooks',
    panels: [
      { title: 'Attempts by result', unit: 'ops', queries: [rate('switchyard_webhook_attempts_total', 'result')] },
      { title: 'Deliveries settled', unit: 'ops', queries: [rate('switchyard_webhook_deliveries_total', 'status')] },
      { title: 'Backlog', unit: 'short', queries: ['sum(switchyard_webhook_backlog{$sel})|pending'] },
      { title: 'Attempt latency', unit: 's', queries: [p(0.5, 'switchyard_webhook_attempt_duration_seconds'), p(0.95, 'switchyard_webhook_attempt_duration_seconds')] },
    ],
  },
  {
    row: 'Storage (group commit)',
    panels: [
      { title: 'Commits and units per second', unit: 'ops', queries: ['sum(rate(switchyard_group_commit_batches_total{$sel}[$__rate_interval]))|transactions', 'sum(rate(switchyard_group_commit_units_total{$sel}[$__rate_interval]))|units'] },
      { title: 'Batch size', unit: 'short', queries: [p(0.5, 'switchyard_group_commit_batch_size'), p(0.99, 'switchyard_group_commit_batch_size')] },
      { title: 'Commit latency', unit: 's', queries: [p(0.5, 'switchyard_group_commit_duration_seconds'), p(0.99, 'switchyard_group_commit_duration_seconds')] },
      { title: 'Time in commits', unit: 'percentunit', queries: ['sum(rate(switchyard_group_commit_seconds_total{$sel}[$__rate_interval]))|busy'], description: 'Share of wall time the writer spends in transactions.' },
    ],
  },
  {
    row: 'Actors and timers',
    panels: [
      { title: 'Actors', unit: 'short', queries: ['sum(switchyard_actors_resident{$sel})|resident', 'sum(switchyard_actors_passivated{$sel})|passivated'] },
      { title: 'Unfinished actors by kind', unit: 'short', queries: ['sum by (kind) (switchyard_actors_active{$sel})|{{kind}}'] },
      { title: 'Due timers by kind', unit: 'short', queries: ['sum by (kind) (switchyard_timers_due{$sel})|{{kind}}'], description: 'Past due and not fired: the scheduler is behind when this stays above zero.' },
    ],
  },
  {
    row: 'Process',
    panels: [
      { title: 'Event-loop lag (p99)', unit: 's', queries: ['max(nodejs_eventloop_lag_p99_seconds{$sel})|p99'] },
      { title: 'Memory', unit: 'bytes', queries: ['sum(process_resident_memory_bytes{$sel})|rss', 'sum(nodejs_heap_size_used_bytes{$sel})|heap used'] },
    ],
  },
];

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

export function renderDashboard(): string {
  const panels: unknown[] = [];
  let id = 1;
  let y = 0;
  for (const group of GROUPS) {
    panels.push({ id: id++, type: 'row', title: group.row, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y }, panels: [] });
    y += 1;
    group.panels.forEach((panel, i) => {
      panels.push({
        id: id++,
        type: 'timeseries',
        title: panel.title,
        ...(panel.description ? { description: panel.description } : {}),
        datasource: DATASOURCE,
        gridPos: { h: 8, w: 6, x: (i % 4) * 6, y: y + Math.floor(i / 4) * 8 },
        fieldConfig: { defaults: { unit: panel.unit }, overrides: [] },
        options: { legend: { displayMode: 'list', placement: 'bottom', showLegend: true }, tooltip: { mode: 'multi', sort: 'desc' } },
        targets: panel.queries.map((query, q) => {
          const [expr, legend] = query.split('|');
          return { refId: String.fromCharCode(65 + q), datasource: DATASOURCE, expr: expr!.replaceAll('$sel', 'instance=~"$instance"'), legendFormat: legend };
        }),
      });
    });
    y += Math.ceil(group.panels.length / 4) * 8;
  }
  const dashboard = {
    title: 'Switchyard',
    uid: 'switchyard',
    description: 'Switchyard service signals (see README "Operations: metrics, traces, logs").',
    tags: ['switchyard'],
    schemaVersion: 39,
    version: 1,
    editable: true,
    time: { from: 'now-1h', to: 'now' },
    refresh: '30s',
    templating: {
      list: [
        { name: 'datasource', label: 'Prometheus', type: 'datasource', query: 'prometheus' },
        {
          name: 'instance',
          label: 'Instance',
          type: 'query',
          datasource: DATASOURCE,
          query: { query: 'label_values(switchyard_http_requests_total, instance)', refId: 'instance' },
          definition: 'label_values(switchyard_http_requests_total, instance)',
          refresh: 2,
          multi: true,
          includeAll: true,
          allValue: '.*',
          current: { text: 'All', value: '$__all' },
        },
      ],
    },
    panels,
  };
  return `${JSON.stringify(dashboard, null, 2)}\n`;
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  writeFileSync(DASHBOARD_PATH, renderDashboard());
  console.log(`wrote ${DASHBOARD_PATH}`);
}
