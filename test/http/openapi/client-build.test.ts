// The committed client is what `npm run gen:client` produces now, and a program using it compiles under --strict.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { GENERATED_FILES } from '../../../scripts/gen-client.js';

const run = promisify(execFile);
// Three tsc runs and a generation: ~45 s alone, more beside the rest of the suite on two cores.
t.setTimeout(300_000);
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');

t.test('npm run gen:client into a temp folder reproduces the committed document and client types', async (t) => {
  const out = mkdtempSync(join(tmpdir(), 'switchyard-gen-client-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  await run(process.execPath, ['--import', 'tsx', join(REPO, 'scripts', 'gen-client.ts'), '--out', out], { cwd: REPO });
  for (const relative of Object.values(GENERATED_FILES)) {
    const fresh = readFileSync(join(out, relative), 'utf8');
    t.ok(fresh.length > 10_000, `${relative} was generated`);
    t.ok(fresh === readFileSync(join(REPO, relative), 'utf8'), `${relative} is up to date (else run npm run gen:client)`);
  }
});

/** Uses the typed client, the stream follower and the webhook check; the @ts-expect-error lines prove the types bite. */
const program = (client: string) => `
import { createSwitchyardClient, followSession, verifyWebhook, type ErrorCode, type SessionEventEnvelope } from ${JSON.stringify(client)};

const client = createSwitchyardClient({ baseUrl: 'http://127.0.0.1:8080', token: 'sv_x' });

export async function use(triggerId: string): Promise<string> {
  const fired = await client.POST('/api/v1/triggers/fire', { body: { triggerId }, params: { header: { 'Idempotency-Key': 'k-1' } } });
  if (fired.error) {
    const code: ErrorCode = fired.error.error.code;
    return code;
  }
  const sessionId: string = fired.data.sessions[0]!.sessionId;
  const view = await client.GET('/api/v1/agents/sessions/{sessionId}', { params: { path: { sessionId } } });
  const flag: boolean | undefined = view.data?.canParticipate;
  for await (const envelope of followSession({ baseUrl: 'http://127.0.0.1:8080', sessionId, token: 'sv_x' })) {
    const e: SessionEventEnvelope = envelope;
    if (e.event.type === 'turn.completed') return e.event.outcome;
  }
  // @ts-expect-error an unknown path is a type error
  await client.GET('/api/v1/nope');
  // @ts-expect-error the request body is typed
  await client.POST('/api/v1/triggers/fire', { body: { triggerId: 1 } });
  const hook = verifyWebhook('whsec_x', '{}', { 'webhook-id': 'a' });
  return String(flag) + hook.data.result;
}
`;

const BASE_OPTIONS = { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext' };

t.test('a program using the client compiles under --strict, in Node and in a browser (DOM, no Node types)', async (t) => {
  // Under node_modules so the program resolves the project's packages and @types like a consumer would.
  const dir = join(REPO, 'node_modules', '.cache', `switchyard-client-check-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'program.ts'), program(join(REPO, 'http', 'client', 'index.js')));
  const configs = {
    node: { ...BASE_OPTIONS, lib: ['es2023'], types: ['node'] },
    // Dependencies' declarations may mention Node types; only our code is checked against DOM alone.
    browser: { ...BASE_OPTIONS, lib: ['es2023', 'dom', 'dom.iterable'], types: [], skipLibCheck: true },
  };
  for (const [name, compilerOptions] of Object.entries(configs)) {
    writeFileSync(join(dir, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions, files: ['program.ts'] }));
    const result = await run(process.execPath, [TSC, '-p', join(dir, `tsconfig.${name}.json`)]).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    t.equal(result, '', `tsc --strict (${name}) reports nothing`);
  }
  // The same program with a type error fails: the check can fail.
  writeFileSync(join(dir, 'program.ts'), `${program(join(REPO, 'http', 'client', 'index.js'))}\nexport const wrong: number = (await client.GET('/api/v1/me')).data!.name;\n`);
  const failed = await run(process.execPath, [TSC, '-p', join(dir, 'tsconfig.node.json')]).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? 'failed',
  );
  t.match(failed, /TS2322/, 'a string assigned to a number is refused');
});
