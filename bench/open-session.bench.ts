// Open-session bench: POST /agents/:id/sessions (202 once the session row, carrying its first turn, is committed) beside
// a bare uWS hello-world answering the same request, with and without the turns running. `npm run bench -- --only open-session`.
import type { BenchContext, CustomScenario, LoadRequest, Row, RunningServer } from './scenario.js';

const NAME = 'open-session (builtin:procedure agent)';
const BASELINE = 'baseline-uws';

// One fixed message: every request still opens a new session. (autocannon's idReplacement keeps the template's
// Content-Length while the id is longer than `[<id>]`, which corrupts keep-alive framing.)
const body = JSON.stringify({ message: 'How do I fire the demo trigger?' });

function request(path: string, headers: Record<string, string>, expectedStatus: number): LoadRequest {
  // Turns run in-process: past the execution queue's bound, opens answer 429 OVERLOADED (issue 12).
  return { method: 'POST', path, headers: { 'content-type': 'application/json', ...headers }, body, expectedStatus, boundedStatuses: [429] };
}

function agentRequest(server: RunningServer): LoadRequest {
  const ready = server.ready as RunningServer['ready'] & { agentId?: string };
  if (!ready.apiKey || !ready.agentId) throw new Error('switchyard-agent announced no apiKey / agentId');
  return request(`/api/v1/agents/${ready.agentId}/sessions`, { authorization: `Bearer ${ready.apiKey}` }, 202);
}

const TARGETS: Array<{ server: string; args?: string[]; label?: string; note: string; request(server: RunningServer): LoadRequest }> = [
  {
    server: 'switchyard-agent',
    args: ['--accept-only'],
    label: 'switchyard-agent --accept-only',
    note: 'the accept path: the session row committed before the 202; its execution and message written in bulk after it, in-process, and not run',
    request: agentRequest,
  },
  {
    server: 'switchyard-agent',
    note: 'each 202 is durable (synchronous=FULL, group commit); its turn (knowledge.search + summary) runs in the same process meanwhile',
    request: agentRequest,
  },
  {
    server: BASELINE,
    note: 'bare uWS hello-world, same request',
    // A header as long as a real key: the baseline reads as many bytes.
    request: () => request('/api/v1/agents/00000000-0000-7000-8000-000000000000/sessions', { authorization: `Bearer sv_${'x'.repeat(38)}` }, 200),
  },
];

export const openSessionScenario: CustomScenario = {
  kind: 'custom',
  name: 'open-session',
  async run(ctx: BenchContext): Promise<Row[]> {
    const rows: Row[] = [];
    for (const target of TARGETS) {
      const server = await ctx.startServer(target.server, target.args);
      try {
        const row = await ctx.load(NAME, server, target.request(server));
        rows.push({ ...row, target: target.label ?? row.target, note: [row.note, target.note].filter(Boolean).join('; ') });
      } finally {
        await ctx.stopServer(server);
      }
    }
    const baseline = rows.find((row) => row.target === BASELINE);
    if (baseline && baseline.reqPerSec > 0) for (const row of rows) row.ratioToBaseline = row.reqPerSec / baseline.reqPerSec;
    return rows;
  },
};
