// SWITCHYARD_DATABASE_URL and the PostgreSQL settings: parsed, defaulted, and refused without echoing the URL (issue 16).
import t from 'tap';
import { configFromEnv, DEFAULT_CONFIG } from '../../runtime/config.js';
import { defaultApplicationName } from '../../http/storage-driver.js';

t.test('without SWITCHYARD_DATABASE_URL the service stays on SQLite with the PostgreSQL defaults unused', async (t) => {
  const config = configFromEnv({});
  t.equal(config.databaseUrl, null);
  t.equal(config.dbPath, DEFAULT_CONFIG.dbPath);
  t.match(config, { pgPoolSize: 10, pgStatementTimeoutMs: 30_000, pgApplicationName: null, pgSessionLeaseMs: 15_000 });
});

t.test('a PostgreSQL URL (TCP or socket) and the pool settings are taken as given', async (t) => {
  const config = configFromEnv({
    SWITCHYARD_DATABASE_URL: 'postgresql://sy:pw@db.internal:6432/switchyard?sslmode=require',
    SWITCHYARD_PG_POOL_SIZE: '25',
    SWITCHYARD_PG_STATEMENT_TIMEOUT_MS: '0',
    SWITCHYARD_PG_APPLICATION_NAME: 'switchyard-a',
  });
  t.match(config, { databaseUrl: 'postgresql://sy:pw@db.internal:6432/switchyard?sslmode=require', pgPoolSize: 25, pgStatementTimeoutMs: 0, pgApplicationName: 'switchyard-a' });
  t.equal(configFromEnv({ SWITCHYARD_DATABASE_URL: 'postgres:///switchyard?host=/run/postgresql' }).databaseUrl, 'postgres:///switchyard?host=/run/postgresql');
  t.equal(configFromEnv({ SWITCHYARD_DATABASE_URL: '' }).databaseUrl, null, 'an empty variable counts as unset');
  t.equal(configFromEnv({ SWITCHYARD_PG_POOL_SIZE: '1' }).pgPoolSize, 2, 'a pool keeps one connection beside the writer');
  t.equal(configFromEnv({ SWITCHYARD_PG_SESSION_LEASE_MS: '3000' }).pgSessionLeaseMs, 3_000);
  t.equal(configFromEnv({ SWITCHYARD_PG_SESSION_LEASE_MS: '10' }).pgSessionLeaseMs, 1_000, 'a session lease lasts at least a second');
});

t.test('a bad URL or pool size is refused with the rule it breaks, never the URL (it carries the password)', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['mysql://u:hunter2@h/db', /must start with postgres:\/\/ or postgresql:\/\//],
    ['postgres://u:hunter2@h', /must name a database/],
    ['postgres://u:hunter2@h/', /must name a database/],
    ['hunter2 is not a url', /not a URL/],
  ];
  for (const [url, rule] of cases) {
    t.throws(() => configFromEnv({ SWITCHYARD_DATABASE_URL: url }), { message: rule }, url);
    try {
      configFromEnv({ SWITCHYARD_DATABASE_URL: url });
    } catch (error) {
      t.notMatch((error as Error).message, /hunter2/, 'the password is not echoed');
    }
  }
  t.throws(() => configFromEnv({ SWITCHYARD_PG_POOL_SIZE: 'ten' }), { message: /SWITCHYARD_PG_POOL_SIZE must be a non-negative integer/ });
});

t.test('the default application name tells processes apart: switchyard-<hostname>-<pid>, within 63 bytes', async (t) => {
  const name = defaultApplicationName();
  t.match(name, new RegExp(`^switchyard-.+-${process.pid}$`));
  t.ok(Buffer.byteLength(name) <= 63);
});
