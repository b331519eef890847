// Starts a real Switchyard service on 127.0.0.1:0 for a test (on the adapter SWITCHYARD_HTTP_ADAPTER names), and closes it at teardown.
import { Writable } from 'node:stream';
import pino from 'pino';
import { createService, type CreateServiceOptions, type Service } from '../../http/service.js';
import { ManualClock } from '../../runtime/clock.js';
import { configFromEnv, DEFAULT_CONFIG, type ServiceConfig } from '../../runtime/config.js';
import { REDACT_PATHS } from '../../runtime/logger.js';
import { testDatabase, testStorage } from './test-database.js';

export interface TestServer {
  /**
   * On either engine: read state through `service.store.repos` or test/helpers/sql.ts; a test that needs the SQLite
   * file itself says so with `sqliteOnly` and reaches it through `onSqlite(service)`.
   */
  service: Service;
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

export { testStorage };

interface Teardown {
  teardown(fn: () => unknown): void;
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
  const database = await testDatabase(options.dbPath);
  const service = await createService({
    dbPath: options.dbPath ?? ':memory:',
    ...(database === null ? {} : { databaseUrl: database.url }),
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
  // One teardown, closing before dropping: tap runs teardowns last-added first, so two would drop the database
  // under the running service (its pool then meets "terminating connection" / "database … does not exist").
  t.teardown(async () => {
    await close();
    await database?.drop();
  });
  return { service, url: `http://127.0.0.1:${port}`, clock, logs, close };
}

/**
 * For a test about SQLite itself (its file, WAL, pragmas, group-commit internals): false on SQLite, else the skip
 * reason to pass as `{ skip }`. Keep the reason specific: it is the list of what PostgreSQL runs do not cover.
 */
export function sqliteOnly(reason: string): false | string {
  return testStorage === 'sqlite' ? false : `SQLite only: ${reason}`;
}
