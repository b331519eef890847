// The PostgreSQL driver's foundations (issue 16): connection pool, schema migrations, leases. Not wired into the service yet.
export { connectPostgres, describeTarget, openPostgres, PostgresUnreachableError, type PostgresOptions, type PostgresPool } from './connection.js';
export { FutureSchemaError, migratePostgres, MIGRATION_LOCK_KEY, schemaVersion } from './migrate.js';
export { POSTGRES_MIGRATIONS, type PostgresMigration } from './migrations/index.js';
export { assertFenced, createLeases, StaleLeaseError, type Lease, type Leases } from './leases.js';
export { createPostgresUnitWriter, type PostgresUnitWriterOptions, type PostgresUnitWriterStats } from './unit-of-work.js';
