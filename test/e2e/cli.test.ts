// The CLI as a user runs it (a child process): help and version at every level, typo suggestions, clear usage
// errors with the documented exit codes, `apply` refs, the demo seeding rules, and stdout carrying JSON lines only.
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../storage/store.js';
import { startServing } from '../helpers/cli-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = ['--import', 'tsx', join(root, 'bin/switchyard.ts')];
const example = join(root, 'examples/workspace.json');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const quiet = { ...process.env, SWITCHYARD_LOG_LEVEL: 'warn' };

function run(args: string[], env: NodeJS.ProcessEnv = quiet) {
  return spawnSync(process.execPath, [...cli, ...args], { cwd: root, encoding: 'utf8', env });
}

const serve = (t: Test, args: string[], env: NodeJS.ProcessEnv = quiet) =>
  startServing(t, process.execPath, [...cli, 'start', '--port', '0', ...args], { cwd: root, env });

const tempDir = () => mkdtempSync(join(tmpdir(), 'sy-cli-'));

function count(db: string, sql: string): number {
  const store = openStore({ path: db });
  try {
    return (store.db.prepare(sql).get() as { n: number }).n;
  } finally {
    store.close();
  }
}

const meStatus = async (base: string, key: string) => (await fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } })).status;

/** Node's own parseArgs/uncaught-error text, which a user must never see. */
const RAW_NODE_ERROR = /ERR_PARSE_ARGS|TypeError|Error \[|\n\s+at /;

t.test('--help and -h at every level print usage on stdout and exit 0', async (t) => {
  for (const args of [['--help'], ['-h'], ['help']]) {
    const r = run(args);
    t.equal(r.status, 0, args.join(' '));
    t.match(r.stdout, /Usage: switchyard/);
    t.match(r.stdout, /start/);
    t.match(r.stdout, /apply/);
    t.match(r.stdout, /Exit codes:/, 'the exit codes are documented in the help');
    t.equal(r.stderr, '');
  }
  for (const args of [['start', '--help'], ['start', '-h'], ['help', 'start']]) {
    const r = run(args);
    t.equal(r.status, 0, args.join(' '));
    t.match(r.stdout, /Usage: switchyard start/);
    for (const option of ['--db', '--host', '--port', '--manifest', '--demo', '--no-demo']) t.match(r.stdout, option, `start documents ${option}`);
  }
  for (const args of [['apply', '--help'], ['apply', '-h'], ['help', 'apply']]) {
    const r = run(args);
    t.equal(r.status, 0, args.join(' '));
    t.match(r.stdout, /Usage: switchyard apply \[options\] <file>/);
    t.match(r.stdout, /--db/);
  }
});

t.test('--version and -v at every level print the package version and exit 0', async (t) => {
  for (const args of [['--version'], ['-v'], ['start', '--version'], ['apply', '-v']]) {
    const r = run(args);
    t.equal(r.status, 0, args.join(' '));
    t.equal(r.stdout.trim(), version, args.join(' '));
  }
});

t.test('no command prints the usage on stderr and exits 2', async (t) => {
  const r = run([]);
  t.equal(r.status, 2);
  t.equal(r.stdout, '');
  t.match(r.stderr, /Usage: switchyard/);
});

t.test('a mistyped command or option gets a suggestion and exit 2, never Node\'s raw text', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['strat'], /unknown command 'strat'[\s\S]*Did you mean start\?/],
    [['aply', 'x.json'], /Did you mean apply\?/],
    [['start', '--prot', '9'], /unknown option '--prot'[\s\S]*Did you mean --port\?/],
    [['apply', example, '--bd', 'x.db'], /Did you mean --db\?/],
    [['--hlep'], /Did you mean --help\?/],
  ];
  for (const [args, expected] of cases) {
    const r = run(args);
    t.equal(r.status, 2, args.join(' '));
    t.match(r.stderr, expected, args.join(' '));
    t.match(r.stderr, /Run "switchyard( start| apply)? --help" for usage\./, 'points at the help');
    t.notMatch(r.stderr, RAW_NODE_ERROR);
    t.equal(r.stdout, '');
  }
});

t.test('bad or missing values are usage errors (exit 2) with a clear message', async (t) => {
  const cases: Array<[string[], RegExp, NodeJS.ProcessEnv?]> = [
    [['start', '--port', 'abc'], /--port <number>.*'abc' is invalid\. Expected a port number from 0 to 65535/],
    [['start', '--port', '70000'], /'70000' is invalid/],
    [['start', '--port'], /option '--port <number>' argument missing/],
    [['start', 'extra'], /too many arguments for 'start'/],
    [['apply'], /missing required argument 'file'/],
    [['start', '--db', ':memory:'], /SWITCHYARD_PORT must be a non-negative integer/, { ...quiet, SWITCHYARD_PORT: 'abc' }],
  ];
  for (const [args, expected, env] of cases) {
    const r = run(args, env);
    t.equal(r.status, 2, args.join(' '));
    t.match(r.stderr, expected, args.join(' '));
    t.notMatch(r.stderr, RAW_NODE_ERROR);
  }
});

t.test('a failure while running exits 1 with one message line, no stack', async (t) => {
  const notAFile = join(tempDir(), 'a-directory');
  mkdirSync(notAFile);
  const r = run(['apply', example, '--db', notAFile]);
  t.equal(r.status, 1, r.stderr);
  t.match(r.stderr, /^switchyard: .+\n$/);
  t.notMatch(r.stderr, RAW_NODE_ERROR);

  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.teardown(() => taken.close());
  const { port } = taken.address() as AddressInfo;
  const busy = run(['start', '--db', ':memory:', '--port', String(port)]);
  t.equal(busy.status, 1, 'start on a port in use exits 1');
  t.match(busy.stderr, new RegExp(`switchyard: could not listen on 127\\.0\\.0\\.1:${port}`));
});

t.test('apply prints every ref; key secrets only the first time; twice creates nothing new', async (t) => {
  const db = join(tempDir(), 'w.db');
  const first = run(['apply', example, '--db', db]);
  t.equal(first.status, 0, first.stderr);
  const refs = JSON.parse(first.stdout).refs as Record<string, string>;
  t.match(refs['ada-key'], /^sv_/);
  t.match(refs['northwind-key'], /^svp_/);
  t.match(refs.acme, /^[0-9a-f-]{36}$/);
  const second = run(['apply', example, '--db', db], { ...process.env, SWITCHYARD_LOG_LEVEL: 'info' });
  t.equal(second.status, 0, second.stderr);
  const again = JSON.parse(second.stdout).refs as Record<string, string>;
  t.equal(again.acme, refs.acme, 'same ids');
  t.match(again['ada-key'], /^[0-9a-f-]{36}$/, 'a key already created maps to its id, not a secret');
  t.match(second.stderr, /"msg":"master keys loaded"/, 'logs go to stderr, so stdout is the one JSON document');
  t.equal(count(db, 'SELECT count(*) AS n FROM organizations'), 2);
  t.equal(count(db, 'SELECT count(*) AS n FROM api_keys'), 4);
});

t.test('a bad manifest is refused naming the JSON path, exit 3, and nothing is applied', async (t) => {
  const dir = tempDir();
  const db = join(dir, 'w.db');
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ organizations: [{ ref: 'o', name: 'O', agents: [{ ref: 'a', domain: 'nope', name: '', setup: { model: '' } }] }] }));
  const result = run(['apply', bad, '--db', db]);
  t.equal(result.status, 3);
  t.match(result.stderr, /organizations\[0\]\.agents\[0\]/);
  t.equal(count(db, 'SELECT count(*) AS n FROM organizations'), 0);
  const missing = run(['start', '--manifest', join(dir, 'missing.json'), '--db', join(dir, 's.db')]);
  t.equal(missing.status, 3, 'start --manifest with an unreadable file is refused too');
  t.match(missing.stderr, /cannot read the file \(ENOENT\)/);
  t.notOk(existsSync(join(dir, 's.db')), 'and no database was created for it');
});

t.test('start on a new database seeds the demo: banner on stderr, JSON lines only on stdout, SIGTERM exits 0', async (t) => {
  const db = join(tempDir(), 'demo.db');
  const server = await serve(t, ['--db', db], { ...process.env, SWITCHYARD_LOG_LEVEL: 'info' });
  t.ok(server.demoKey, 'prints a demo key');
  t.match(server.stderr(), /curl -s -X POST .*\/api\/v1\/triggers\/fire/, 'prints a ready-to-paste curl on stderr');
  t.equal(await meStatus(server.base, server.demoKey!), 200, 'the printed key works');
  t.equal((await fetch(`${server.base}/readyz`)).status, 200);
  t.equal(await server.stop('SIGTERM'), 0, 'exits 0 after SIGTERM');
  const lines = server.stdout().split('\n').filter((line) => line !== '');
  t.ok(lines.length >= 3, 'info logs were written');
  for (const line of lines) t.doesNotThrow(() => JSON.parse(line), `stdout line is JSON: ${line.slice(0, 80)}`);
  t.notMatch(server.stdout(), /sv_[0-9A-Za-z]{20}/, 'the demo key is not in the logs');
  t.match(server.stderr(), /SIGTERM: shutting down/);
  t.notOk(existsSync(`${db}-wal`) && statSync(`${db}-wal`).size > 0, 'WAL checkpointed on close');
  const store = openStore({ path: db });
  t.teardown(() => store.close());
  t.equal(store.integrityCheck(), 'ok');
});

t.test('a database an earlier start seeded gets a new demo key at the next start; the old one is revoked', async (t) => {
  const db = join(tempDir(), 'demo.db');
  const first = await serve(t, ['--db', db]);
  t.equal(await first.stop(), 0);
  const second = await serve(t, ['--db', db]);
  t.ok(second.demoKey);
  t.not(second.demoKey, first.demoKey);
  t.equal(await meStatus(second.base, second.demoKey!), 200);
  t.not(await meStatus(second.base, first.demoKey!), 200, 'the previous key no longer works');
  t.equal(await second.stop(), 0);
  t.equal(count(db, 'SELECT count(*) AS n FROM organizations'), 1, 'the demo was not applied twice');
});

t.test('a database that holds other data is served as it is: no demo, no known password; --demo seeds on request', async (t) => {
  const db = join(tempDir(), 'real.db');
  t.equal(run(['apply', example, '--db', db]).status, 0);
  const plain = await serve(t, ['--db', db]);
  t.equal(plain.demoKey, undefined, 'no demo key');
  // Read once it exited: the notice follows the banner, and may arrive in a later chunk than the one that ended the wait.
  t.equal(await plain.stop(), 0);
  t.match(plain.stderr(), /already holds data: the demo workspace was not seeded \(--demo seeds it\)/);
  t.equal(count(db, "SELECT count(*) AS n FROM users WHERE email = 'demo@switchyard.local'"), 0, 'no demo owner');
  t.equal(count(db, 'SELECT count(*) AS n FROM organizations'), 2);

  const asked = await serve(t, ['--db', db, '--demo']);
  t.ok(asked.demoKey, '--demo seeds and prints a key');
  t.equal(await meStatus(asked.base, asked.demoKey!), 200);
  t.equal(await asked.stop(), 0);
  t.equal(count(db, 'SELECT count(*) AS n FROM organizations'), 3);
});

t.test('--no-demo and --manifest keep a new database free of the demo', async (t) => {
  const dir = tempDir();
  const bare = await serve(t, ['--db', join(dir, 'a.db'), '--no-demo']);
  t.equal(bare.demoKey, undefined);
  t.equal(await bare.stop(), 0);
  t.equal(count(join(dir, 'a.db'), 'SELECT count(*) AS n FROM users'), 0, '--no-demo wrote no user');

  const own = await serve(t, ['--db', join(dir, 'b.db'), '--manifest', example]);
  t.equal(own.demoKey, undefined);
  t.equal(await own.stop(), 0);
  t.equal(count(join(dir, 'b.db'), "SELECT count(*) AS n FROM users WHERE email = 'demo@switchyard.local'"), 0, 'no demo owner');
  t.equal(count(join(dir, 'b.db'), 'SELECT count(*) AS n FROM organizations'), 2, 'the manifest was applied');
});
