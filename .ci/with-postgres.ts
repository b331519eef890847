// Runs a command with its service-level tests on PostgreSQL: one throwaway cluster for the whole run, stopped after.
// Usage: tsx .ci/with-postgres.ts <command> [args…]; exits with the command's status.
import { spawn } from 'node:child_process';
import pg from 'pg';
import { migratePostgres } from '../storage/postgres/migrate.js';
import { postgresBinDir, startCluster } from '../test/helpers/postgres-cluster.js';
import { TEMPLATE_ENV } from '../test/helpers/test-database.js';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  console.error('usage: tsx .ci/with-postgres.ts <command> [args…]');
  process.exit(2);
}

/** The admin URL of the server the tests use, and how to stop it (nothing to stop for a given server). */
async function server(): Promise<{ url: string; stop(): void } | string> {
  const given = process.env.SWITCHYARD_TEST_DATABASE_URL;
  if (given) return { url: given, stop: () => {} };
  const binDir = postgresBinDir();
  if (binDir === null) return 'no SWITCHYARD_TEST_DATABASE_URL and no initdb in /usr/lib/postgresql/*/bin';
  // Each test file's service holds a pool, and tap runs files in parallel: room for them all.
  const cluster = await startCluster(binDir, ['max_connections=300']);
  return typeof cluster === 'string' ? cluster : { url: cluster.adminUrl, stop: cluster.stop };
}

/**
 * Migrates one database the test databases are copied from: a file copy of a migrated template costs ~12 ms, against
 * ~70 ms for CREATE DATABASE plus ~100 ms of migrations for every server and store the suite opens.
 */
async function migratedTemplate(adminUrl: string): Promise<string> {
  const name = 'switchyard_test_template';
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`).then(() => admin.query(`CREATE DATABASE ${name}`)).finally(() => admin.end());
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  await migratePostgres(pool).finally(() => pool.end());
  return name;
}

const target = await server();
if (typeof target === 'string') {
  // A CI without PostgreSQL must not pass silently as if it had run the PostgreSQL leg.
  console.error(`PostgreSQL is not available (${target}): refusing to run the PostgreSQL leg`);
  process.exit(1);
}
const template = await migratedTemplate(target.url);
console.log(`== service-level tests on PostgreSQL (SWITCHYARD_TEST_STORAGE=postgres, ${new URL(target.url).host})`);
const child = spawn(command, args, {
  stdio: 'inherit',
  env: { ...process.env, SWITCHYARD_TEST_STORAGE: 'postgres', SWITCHYARD_TEST_DATABASE_URL: target.url, [TEMPLATE_ENV]: template },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  target.stop();
  process.exit(code ?? (signal ? 1 : 0));
});
