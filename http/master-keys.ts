// Loads the master keys for envelope encryption from the environment, a key file, or a generated file beside the database.
import type { ServiceConfig } from '../runtime/config.js';
import type { Logger } from '../runtime/logger.js';
import { defaultMasterKeyFileFor, loadKeyRing, type KeyRing } from '../runtime/vault/index.js';

/** On PostgreSQL there is no database file to sit beside: the fallback file is in the working directory. */
const POSTGRES_MASTER_KEY_FILE = 'switchyard.master-keys';

export function loadMasterKeys(config: ServiceConfig, env: Record<string, string | undefined>, logger: Logger): KeyRing {
  const file = config.databaseUrl !== null ? POSTGRES_MASTER_KEY_FILE : defaultMasterKeyFileFor(config.dbPath);
  const loaded = loadKeyRing({ env, fallback: file ? { kind: 'file', path: file } : { kind: 'ephemeral' } });
  for (const warning of loaded.warnings) logger.warn({ source: loaded.source }, warning);
  if (config.databaseUrl !== null && (loaded.source === 'default-file' || loaded.source === 'generated-file')) {
    logger.warn({ path: loaded.path }, 'master keys come from a file on this node: every node sharing the database needs the same keys (SWITCHYARD_MASTER_KEYS or SWITCHYARD_MASTER_KEY_FILE)');
  }
  logger.info({ source: loaded.source, path: loaded.path }, 'master keys loaded');
  return loaded.ring;
}
