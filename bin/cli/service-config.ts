// Owns the configuration a CLI command runs with: defaults, then SWITCHYARD_* variables, then flags.
import { configFromEnv, type ServiceConfig } from '../../runtime/config.js';
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
  if (flags.db !== undefined) config.dbPath = flags.db;
  if (flags.host !== undefined) config.host = flags.host;
  if (flags.port !== undefined) config.port = flags.port;
  return config;
}
