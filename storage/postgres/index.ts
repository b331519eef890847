// The PostgreSQL driver (issue 16): pool, schema migrations, leases, repositories, units of work, the storage port, session signals.
export { connectPostgres, describeTarget, openPostgres, PostgresUnreachableError, type PostgresOptions, type PostgresPool } from './connection.js';
export { FutureSchemaError, migratePostgres, MIGRATION_LOCK_KEY, schemaVersion } from './migrate.js';
export { POSTGRES_MIGRATIONS, type PostgresMigration } from './migrations/index.js';
export { assertFenced, createLeases, StaleLeaseError, type Lease, type Leases } from './leases.js';
export type { Queryable } from './queryable.js';
export { createPostgresRepositories } from './repos/index.js';
export { openPostgresStorage, type PostgresStorage, type PostgresStorageOptions } from './storage.js';
export { createPostgresUnitWriter, type PostgresUnitWriterOptions, type PostgresUnitWriterStats } from './unit-of-work.js';
export { listenForSessionSignals, notifySessionEvents, SESSION_EVENTS_CHANNEL, type SessionSignal, type SessionSignalListener } from './session-notify.js';
export { createPostgresSessionOwnership, sessionResource, type PostgresSessionOwnershipOptions } from './session-ownership.js';
