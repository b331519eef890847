// Owns the configuration a CLI command runs with: defaults, then SWITCHYARD_* variables, then flags.
import { configFromEnv, threadExecutionMisfit, type ServiceConfig } from '../../runtime/config.js';
import { UsageError } from './exit-codes.js';

export interface ConfigFlags {
  db?: string;
  host?: string;
  port?: number;
}

export function serviceConfig(flags: ConfigFlags): ServiceConfig {
  let config: ServiceConfig;
  try {
    config = configFromEnv();
  } catch (error) {
    // A bad variable is the caller's mistake, like a bad flag: exit 2, not a crash.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  // Two databases named at once: refuse rather than silently ignore the file the user asked for.
  if (flags.db !== undefined && config.databaseUrl !== null) {
    throw new UsageError('--db names a SQLite file, but SWITCHYARD_DATABASE_URL selects PostgreSQL: use one or the other');
  }
  if (flags.db !== undefined) config.dbPath = flags.db;
  if (flags.host !== undefined) config.host = flags.host;
  if (flags.port !== undefined) config.port = flags.port;
  const misfit = threadExecutionMisfit(config);
  if (misfit !== null) throw new UsageError(`SWITCHYARD_EXECUTION=thread cannot run here: ${misfit}`);
  return config;
}
