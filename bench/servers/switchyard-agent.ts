// The service under test for the open-session bench: the embedding API on a temp file DB seeded from the demo manifest.
// Announces the demo key and the demo agent (builtin:procedure: one knowledge.search call, then a summary).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { createService, type Service } from '../../http/service.js';
import { uwsImplementation } from '../../http/uws-server.js';
import { createLogger } from '../../runtime/logger.js';
import { loadManifestFile } from '../../runtime/manifest/load.js';
import { announce, exitWithParent } from '../child-lifecycle.js';
import { REPO_ROOT } from '../children.js';

const dir = mkdtempSync(join(tmpdir(), 'switchyard-bench-agent-'));
let service: Service | undefined;
exitWithParent(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

try {
  // Rate limits off and warn-level logs to stderr: the bench measures the open path, not token buckets or logging.
  service = await createService({
    dbPath: join(dir, 'agent.db'),
    logger: createLogger('warn', pino.destination(2)),
    config: { keyRateLimit: { ratePerSecond: 0, burst: 0 }, ipRateLimit: { ratePerSecond: 0, burst: 0 } },
  });
  const { refs } = await service.applyManifest(loadManifestFile(resolve(REPO_ROOT, 'examples/demo.workspace.json')));
  const port = await service.listen(0, '127.0.0.1');
  announce({
    port,
    uws: uwsImplementation(),
    apiKey: refs['demo-key'],
    agentId: refs['demo-agent'],
    facts: { durability: service.services.config.durability },
  });
} catch (error) {
  process.stderr.write(`switchyard-agent bench server: ${error instanceof Error ? error.message : String(error)}\n`);
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(1);
}
