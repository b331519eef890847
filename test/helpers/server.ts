// Starts a real Switchyard service on 127.0.0.1:0 for a test (on the adapter SWITCHYARD_HTTP_ADAPTER names), and closes it at teardown.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import { createService, type CreateServiceOptions, type SqliteService } from '../../http/service.js';
import { ManualClock } from '../../runtime/clock.js';
import { configFromEnv, DEFAULT_CONFIG, type ServiceConfig } from '../../runtime/config.js';
import { REDACT_PATHS } from '../../runtime/logger.js';

export interface TestServer {
  /**
   * Typed as on SQLite, where the suite runs, so fixtures may reach `store.db`; under SWITCHYARD_TEST_STORAGE=postgres
   * it is the PostgreSQL port and such fixtures fail (they need porting to the port's repositories).
   */
  service: SqliteService;
  url: string;
  clock: ManualClock;
  /** Every log line the service wrote, for secret-leak assertions. */
  logs: string[];
  close(): Promise<void>;
}

/** The HTTP adapter tests serve with: SWITCHYARD_HTTP_ADAPTER=uws|node|auto (default auto), so one suite covers both. */
export function testHttpAdapter(): ServiceConfig['httpAdapter'] {
  return configFromEnv({ SWITCHYARD_HTTP_ADAPTER: process.env.SWITCHYARD_HTTP_ADAPTER }).httpAdapter;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

/**
 * SWITCHYARD_TEST_STORAGE=postgres runs the server on a fresh database of SWITCHYARD_TEST_DATABASE_URL's server (a
 * role that may CREATE DATABASE), dropped at teardown; otherwise null and the server runs on SQLite.
 */
async function testDatabaseUrl(t: Teardown): Promise<string | null> {
  if (process.env.SWITCHYARD_TEST_STORAGE !== 'postgres') return null;
  const adminUrl = process.env.SWITCHYARD_TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('SWITCHYARD_TEST_STORAGE=postgres needs SWITCHYARD_TEST_DATABASE_URL');
  const name = `switchyard_http_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`).finally(() => admin.end());
  t.teardown(async () => {
    const dropper = new pg.Client({ connectionString: adminUrl });
    await dropper.connect();
    await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => dropper.end());
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function startTestServer(
  t: Teardown,
  options: { config?: Partial<ServiceConfig>; dbPath?: string; clock?: ManualClock } & Omit<CreateServiceOptions, 'config' | 'clock' | 'logger'> = {},
): Promise<TestServer> {
  const clock = options.clock ?? new ManualClock(Date.UTC(2026, 10, 22, 12));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const logger = pino({ level: 'debug', redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, sink);
  const databaseUrl = await testDatabaseUrl(t);
  const service = await createService({
    dbPath: options.dbPath ?? ':memory:',
    ...(databaseUrl === null ? {} : { databaseUrl }),
    clock,
    logger,
    config: {
      ...DEFAULT_CONFIG,
      keyRateLimit: { ratePerSecond: 0, burst: 0 },
      ipRateLimit: { ratePerSecond: 0, burst: 0 },
      httpAdapter: testHttpAdapter(),
      ...options.config,
    },
  });
  const port = await service.listen(0, '127.0.0.1');
  const close = () => service.close();
  t.teardown(close);
  return { service: service as unknown as SqliteService, url: `http://127.0.0.1:${port}`, clock, logs, close };
}
