// The service under test for the fire bench: the embedding API on a temp file DB seeded from examples/workspace.json.
// Announces bob's key and the `new-lead` API trigger (subscribers: the lookup agent on builtin:procedure, the enrich flow).
// `--accept-only`: sessions are committed as usual but never handed to their engines, so a load measures the
// accept path (auth, planning, one durable unit of work) without the sessions' execution competing for the core.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createService, type Service } from '../../http/service.js';
import { uwsImplementation } from '../../http/uws-server.js';
import { createLogger } from '../../runtime/logger.js';
import { loadManifestFile } from '../../runtime/manifest/load.js';
import { announce, exitWithParent } from '../child-lifecycle.js';
import { REPO_ROOT } from '../children.js';

const { values } = parseArgs({ options: { 'accept-only': { type: 'boolean', default: false } } });
const dir = mkdtempSync(join(tmpdir(), 'switchyard-bench-fire-'));
let service: Service | undefined;
exitWithParent(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

try {
  // Rate limits off and warn-level logs to stderr: the bench measures the fire path, not token buckets or logging.
  service = await createService({
    dbPath: join(dir, 'fire.db'),
    logger: createLogger('warn', pino.destination(2)),
    config: { keyRateLimit: { ratePerSecond: 0, burst: 0 }, ipRateLimit: { ratePerSecond: 0, burst: 0 } },
  });
  // The dispatcher is a plain object the starter calls through: replacing `dispatch` leaves queued sessions queued.
  if (values['accept-only']) service.services.sessions.dispatcher.dispatch = () => undefined;
  const { refs } = await service.applyManifest(loadManifestFile(resolve(REPO_ROOT, 'examples/workspace.json')));
  const port = await service.listen(0, '127.0.0.1');
  announce({
    port,
    uws: uwsImplementation(),
    apiKey: refs['bob-key'],
    triggerId: refs['new-lead'],
    facts: { durability: service.services.config.durability, sessions: values['accept-only'] ? 'committed, not run (--accept-only)' : 'run in-process' },
  });
} catch (error) {
  process.stderr.write(`switchyard-fire bench server: ${error instanceof Error ? error.message : String(error)}\n`);
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(1);
}
