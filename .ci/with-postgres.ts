// Runs a command with its service-level tests on PostgreSQL: one throwaway cluster for the whole run, stopped after.
// Usage: tsx .ci/with-postgres.ts <command> [args…]; exits with the command's status.
import { spawn } from 'node:child_process';
import { postgresBinDir, startCluster } from '../test/helpers/postgres-cluster.js';

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

const pg = await server();
if (typeof pg === 'string') {
  // A CI without PostgreSQL must not pass silently as if it had run the PostgreSQL leg.
  console.error(`PostgreSQL is not available (${pg}): refusing to run the PostgreSQL leg`);
  process.exit(1);
}
console.log(`== service-level tests on PostgreSQL (SWITCHYARD_TEST_STORAGE=postgres, ${new URL(pg.url).host})`);
const child = spawn(command, args, {
  stdio: 'inherit',
  env: { ...process.env, SWITCHYARD_TEST_STORAGE: 'postgres', SWITCHYARD_TEST_DATABASE_URL: pg.url },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  pg.stop();
  process.exit(code ?? (signal ? 1 : 0));
});
