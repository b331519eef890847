// The CLI as a user runs it: `apply` prints refs (secrets once), refuses a bad manifest naming its path,
// and `start` serves, prints the demo key and curl, and shuts down cleanly on SIGTERM.
import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../storage/store.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = ['--import', 'tsx', join(root, 'bin/switchyard.ts')];
const example = join(root, 'examples/workspace.json');

function run(args: string[]) {
  return spawnSync(process.execPath, [...cli, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, SWITCHYARD_LOG_LEVEL: 'warn' } });
}

t.test('apply prints every ref; key secrets only the first time; twice creates nothing new', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sy-cli-'));
  const db = join(dir, 'w.db');
  const first = run(['apply', example, '--db', db]);
  t.equal(first.status, 0, first.stderr);
  const refs = JSON.parse(first.stdout).refs as Record<string, string>;
  t.match(refs['ada-key'], /^sv_/);
  t.match(refs['northwind-key'], /^svp_/);
  t.match(refs.acme, /^[0-9a-f-]{36}$/);
  const second = run(['apply', example, '--db', db]);
  t.equal(second.status, 0, second.stderr);
  const again = JSON.parse(second.stdout).refs as Record<string, string>;
  t.equal(again.acme, refs.acme, 'same ids');
  t.match(again['ada-key'], /^[0-9a-f-]{36}$/, 'a key already created maps to its id, not a secret');
  const store = openStore({ path: db });
  t.teardown(() => store.close());
  const count = (table: string) => (store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  t.equal(count('organizations'), 2);
  t.equal(count('api_keys'), 4);
});

t.test('a bad manifest is refused naming the JSON path, and nothing is applied', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sy-cli-'));
  const db = join(dir, 'w.db');
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ organizations: [{ ref: 'o', name: 'O', agents: [{ ref: 'a', domain: 'nope', name: '', setup: { model: '' } }] }] }));
  const result = run(['apply', bad, '--db', db]);
  t.not(result.status, 0);
  t.match(result.stderr, /organizations\[0\]\.agents\[0\]/);
  const store = openStore({ path: db });
  t.teardown(() => store.close());
  t.equal((store.db.prepare('SELECT count(*) AS n FROM organizations').get() as { n: number }).n, 0);
});

t.test('start serves the demo workspace, prints a working key and curl, and stops cleanly on SIGTERM', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sy-cli-'));
  const db = join(dir, 'demo.db');
  const child = spawn(process.execPath, [...cli, 'start', '--db', db, '--port', '0'], { cwd: root, env: { ...process.env, SWITCHYARD_LOG_LEVEL: 'warn' } });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(() => child.kill('SIGKILL'));
  const deadline = Date.now() + 60_000;
  while (!/Stop: Ctrl-C/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const base = /running at (http:\/\/[^\s]+)/.exec(out)?.[1];
  const key = /(sv_[0-9A-Za-z]{38})/.exec(out)?.[1];
  t.ok(base, 'prints the base URL');
  t.ok(key, 'prints a demo key');
  t.match(out, /curl -s -X POST .*\/api\/v1\/triggers\/fire/, 'prints a ready-to-paste curl');
  const me = await fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
  t.equal(me.status, 200, 'the printed key works');
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'exits 0 after SIGTERM');
  t.notOk(existsSync(`${db}-wal`) && (await import('node:fs')).statSync(`${db}-wal`).size > 0, 'WAL checkpointed on close');
  const store = openStore({ path: db });
  t.teardown(() => store.close());
  t.equal(store.integrityCheck(), 'ok');
});
