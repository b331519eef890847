// The package as a user gets it: `npm pack` ships only what runs (no tests, benchmarks, keys or databases), and
// the tarball installed into an empty folder starts, seeds its demo from its own files, answers /readyz, and stops.
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startServing } from '../helpers/cli-process.js';

// Packing builds with tsc and installing compiles better-sqlite3 from source: minutes, not seconds.
t.setTimeout(300_000);

const exec = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };

/** The npm_* variables of the npm that runs this test (npm test, npx tap) must not steer the npm it spawns. */
const npmFreeEnv = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));

const FORBIDDEN: Array<[string, RegExp]> = [
  ['tests', /^(dist\/)?test\//],
  ['benchmarks', /^(dist\/)?bench\//],
  ['scripts', /^(dist\/)?scripts\//],
  ['TypeScript sources', /(?<!\.d)\.ts$/],
  ['source maps', /\.map$/],
  ['master keys', /\.master-keys$/],
  ['databases', /\.(db|db-wal|db-shm|db-journal|sqlite3?)$/],
  ['tarballs', /\.tgz$/],
  ['dependencies', /(^|\/)node_modules\//],
];

/**
 * better-sqlite3's install script (prebuild-install, else node-gyp) compiles SQLite for a minute or more of CPU on
 * this machine. prebuild-install first looks for a "local prebuild": this hands it the binary the clone already
 * built from the same version, so the install runs every real step but the compile. A different resolved version
 * finds no file and compiles from source; SWITCHYARD_PACK_TEST_FROM_SOURCE=1 always does.
 */
async function localSqlitePrebuild(work: string): Promise<NodeJS.ProcessEnv> {
  if (process.env.SWITCHYARD_PACK_TEST_FROM_SOURCE === '1') return {};
  const sqliteDir = join(root, 'node_modules/better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(sqliteDir, 'package.json'), 'utf8')) as { version: string };
  const dir = join(work, 'prebuilds');
  mkdirSync(dir);
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  await exec('tar', ['-czf', join(dir, name), '-C', sqliteDir, 'build/Release/better_sqlite3.node']);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

t.test('npm pack ships a whitelist; the installed tarball starts from an empty folder and stops on SIGTERM', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'sy-pack-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  // What `npm start` leaves in a clone: a database and its generated master-key file must not be packed.
  const decoys = ['pack-decoy.db', 'pack-decoy.db-wal', 'pack-decoy.db.master-keys'].map((name) => join(root, name));
  for (const decoy of decoys) writeFileSync(decoy, 'not for the package');
  t.teardown(() => decoys.forEach((decoy) => rmSync(decoy, { force: true })));

  const packStarted = Date.now();
  const packed = await exec('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, env: npmFreeEnv(), maxBuffer: 64 * 1024 * 1024 });
  const [result] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = result.files.map((file) => file.path);
  t.comment(`npm pack: ${files.length} files in ${((Date.now() - packStarted) / 1000).toFixed(1)} s`);
  for (const [what, pattern] of FORBIDDEN) {
    t.same(files.filter((path) => pattern.test(path)), [], `no ${what} in the package`);
  }
  for (const needed of [
    'package.json',
    'README.md',
    'dist/bin/switchyard.js',
    'dist/index.js',
    'dist/index.d.ts',
    'examples/demo.workspace.json',
    'examples/workspace.json',
    'docs/workspace.schema.json',
    'docs/errors.md',
    'dist/console/index.html',
  ]) {
    t.ok(files.includes(needed), `ships ${needed}`);
  }

  // An empty project but for npm 11's install-script approval, which better-sqlite3 needs (README "Quick start").
  const app = join(work, 'app');
  const appPackage = { name: 'pack-test-app', private: true, allowScripts: { 'better-sqlite3': true } };
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify(appPackage));
  const installStarted = Date.now();
  await exec('npm', ['install', join(work, result.filename), '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: app,
    env: { ...npmFreeEnv(), ...(await localSqlitePrebuild(work)) },
    maxBuffer: 64 * 1024 * 1024,
  });
  t.comment(`npm install of the tarball: ${((Date.now() - installStarted) / 1000).toFixed(1)} s`);

  const bin = join(app, 'node_modules/.bin/switchyard');
  const env = { ...process.env, SWITCHYARD_LOG_LEVEL: 'warn' };
  const versionOut = await exec(bin, ['--version'], { cwd: app, env });
  t.equal(versionOut.stdout.trim(), manifest.version, 'the installed bin is `switchyard`');
  const embedded = await exec(process.execPath, ['--input-type=module', '-e', `import('${manifest.name}').then((m) => console.log(typeof m.createService))`], { cwd: app });
  t.equal(embedded.stdout.trim(), 'function', `import('${manifest.name}') gives the embedding API`);

  const server = await startServing(t, bin, ['start', '--db', join(work, 'x.db'), '--port', '0'], { cwd: app, env });
  const ready = await fetch(`${server.base}/readyz`);
  t.equal(ready.status, 200, '/readyz answers');
  t.ok(server.demoKey, 'the demo workspace was found inside the installed package and seeded');
  const me = await fetch(`${server.base}/api/v1/me`, { headers: { authorization: `Bearer ${server.demoKey}` } });
  t.equal(me.status, 200, 'its demo key works');
  const consolePage = await fetch(`${server.base}/console`);
  t.match(consolePage.headers.get('content-type'), /text\/html/, 'the installed package serves the web console');
  const script = /src="(\/console\/assets\/[^"]+)"/.exec(await consolePage.text())?.[1];
  t.equal((await fetch(`${server.base}${script}`)).status, 200, 'with its hashed script');
  t.equal(await server.stop('SIGTERM'), 0, 'exits 0 on SIGTERM');
});
