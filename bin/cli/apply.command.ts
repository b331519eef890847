// Owns `switchyard apply FILE`: applies a workspace manifest in one transaction and prints its refs as JSON.
import { createLogger } from '../../runtime/logger.js';
import { loadManifestFile } from '../../runtime/manifest/load.js';
import { serviceConfig, type ConfigFlags } from './service-config.js';

export async function applyCommand(file: string, options: ConfigFlags): Promise<void> {
  const config = serviceConfig(options);
  const manifest = loadManifestFile(file);
  const { createService } = await import('../../http/service.js');
  // Logs go to stderr here: stdout is the one JSON document a script parses.
  const logger = createLogger(process.env.SWITCHYARD_LOG_LEVEL ? config.logLevel : 'warn', process.stderr);
  const service = await createService({ config, logger });
  try {
    const result = await service.applyManifest(manifest);
    process.stdout.write(`${JSON.stringify({ refs: result.refs }, null, 2)}\n`);
  } finally {
    await service.close();
  }
}
