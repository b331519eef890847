// Property: malformed bodies at every body-taking route of the served OpenAPI document never answer 5xx, and every
// refusal is the spec's error envelope (issue 13 item 8; SPEC "Errors").
import fc from 'fast-check';
import t from 'tap';
import { call, type Answer } from '../helpers/http.js';
import { testStorage } from '../helpers/server.js';
import { startFuzzWorld, type Operation } from './fuzz/fuzz-world.js';
import { deepExamples, malformedBody, type MalformedBody } from './fuzz/malformed-bodies.js';

/** Random runs per route, besides the fixed deep examples: ~40 routes x 40 runs take ~15 s on the shared 2-core box. */
const RUNS_PER_ROUTE = 40;
// About 5,000 requests, each a few statements: on PostgreSQL (a round trip per statement) they need more than the
// suite's 120 s per file on a loaded machine.
if (testStorage === 'postgres') t.setTimeout(300_000);

/** Mostly with a valid credential so bodies reach parsing; sometimes without, so the refusal order is fuzzed too. */
const credentialed = fc.oneof({ arbitrary: fc.constant(true), weight: 5 }, { arbitrary: fc.constant(false), weight: 1 });

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{ error: { code, message, details? } }` and nothing else. */
function isEnvelope(json: unknown): boolean {
  if (!isPlainObject(json) || Object.keys(json).join() !== 'error' || !isPlainObject(json.error)) return false;
  const { code, message, details, ...rest } = json.error;
  return typeof code === 'string' && /^[A-Z_]+$/.test(code) && typeof message === 'string' && (details === undefined || isPlainObject(details)) && Object.keys(rest).length === 0;
}

/** MCP answers its transport and protocol refusals as JSON-RPC errors (the MCP spec), its auth failures as the envelope. */
const isJsonRpcError = (json: unknown): boolean =>
  isPlainObject(json) && json.jsonrpc === '2.0' && isPlainObject(json.error) && typeof json.error.code === 'number' && typeof json.error.message === 'string';

function describe(operation: Operation, path: string, sent: MalformedBody, answer: Answer): string {
  return `${operation.method} ${path} [${sent.kind}, ${sent.contentType ?? 'no content-type'}, ${sent.body.length} B] -> ${answer.status} ${answer.text.slice(0, 200)}`;
}

t.test('every body-taking route answers malformed bodies with a 4xx envelope, never a 5xx', async (t) => {
  const world = await startFuzzWorld(t);
  t.ok(world.operations.length >= 30, `${world.operations.length} body-taking operations listed from the served OpenAPI document`);
  for (const required of ['/api/v1/triggers/fire', '/api/v1/triggers', '/api/v1/events/{triggerId}', '/api/v1/mcp']) {
    t.ok(world.operations.some((o) => o.path === required), `${required} is covered`);
  }
  const seen = new Map<string, number>();

  for (const operation of world.operations) {
    const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const params = fc.tuple(...names.map((name) => fc.constantFrom(...world.paramValues(operation.method, name))));
    await fc.assert(
      fc.asyncProperty(params, malformedBody(operation.schema, world.ids), credentialed, async (values, sent, withCredential) => {
        const path = names.reduce((p, name, i) => p.replace(`{${name}}`, encodeURIComponent(values[i]!)), operation.path);
        const headers: Record<string, string> = withCredential ? await world.credentialFor(operation, path, sent.body) : {};
        if (sent.contentType !== undefined) headers['content-type'] = sent.contentType;
        if (path === '/api/v1/mcp') headers.accept = 'application/json, text/event-stream';
        const answer = await call(`${world.url}${path}`, { method: operation.method, headers, body: sent.body });
        await world.after(operation);
        seen.set(`${answer.status}`, (seen.get(`${answer.status}`) ?? 0) + 1);
        if (answer.status >= 500) throw new Error(`5xx: ${describe(operation, path, sent, answer)}`);
        if (answer.status >= 400) {
          const shaped = isEnvelope(answer.json) || (path === '/api/v1/mcp' && isJsonRpcError(answer.json));
          if (!shaped) throw new Error(`not the error envelope: ${describe(operation, path, sent, answer)}`);
          if (!/^application\/json/.test(answer.headers.get('content-type') ?? '')) throw new Error(`not JSON: ${describe(operation, path, sent, answer)}`);
        }
      }),
      {
        numRuns: RUNS_PER_ROUTE,
        examples: deepExamples(operation.schema, world.ids).map((body) => [names.map((name) => world.paramValues(operation.method, name)[0]!), body, true]),
      },
    );
  }
  t.comment(`statuses seen: ${JSON.stringify(Object.fromEntries([...seen].sort()))}`);
  t.ok((seen.get('400') ?? 0) > world.operations.length, 'most bodies reached validation (400)');
  const unexpected = world.p.c.server.logs.filter((line) => line.includes('unexpected error'));
  t.same(unexpected, [], 'the service logged no unexpected error');
});
