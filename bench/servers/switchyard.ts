// The service under test: the embedding API on a temp file DB seeded from the demo manifest, on 127.0.0.1.
// Args: [--manifest FILE] [--key-ref REF] (defaults examples/demo.workspace.json, demo-key).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createService, type Service } from '../../index.js';
import { uwsImplementation } from '../../http/uws-server.js';
import { createLogger } from '../../runtime/logger.js';
import { loadManifestFile } from '../../runtime/manifest/load.js';
import { announce, exitWithParent } from '../child-lifecycle.js';
import { REPO_ROOT } from '../children.js';

/** The seeding half of the embedding API: applying a manifest returns each ref's id or one-time secret. */
type Seedable = Service & { applyManifest?(manifest: unknown): { refs: Record<string, string> } | Promise<{ refs: Record<string, string> }> };

const { values } = parseArgs({
  options: { manifest: { type: 'string', default: 'examples/demo.workspace.json' }, 'key-ref': { type: 'string', default: 'demo-key' } },
});
const dir = mkdtempSync(join(tmpdir(), 'switchyard-bench-'));
const dbPath = join(dir, 'bench.db');
let service: Seedable | undefined;
exitWithParent(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

try {
  const manifest = loadManifestFile(resolve(REPO_ROOT, values.manifest));
  // Rate limits off: the bench measures the request path, not the token buckets saying 429.
  // Logs go to stderr so stdout carries only the ready line; warn level keeps per-request logging off the hot path.
  service = (await createService({
    dbPath,
    logger: createLogger('warn', pino.destination(2)),
    config: { keyRateLimit: { ratePerSecond: 0, burst: 0 }, ipRateLimit: { ratePerSecond: 0, burst: 0 } },
  })) as Seedable;
  if (typeof service.applyManifest !== 'function') throw new Error('createService() returned no applyManifest(manifest): cannot seed the demo workspace');
  const { refs } = await service.applyManifest(manifest);
  const apiKey = refs[values['key-ref']];
  if (!apiKey) throw new Error(`the manifest produced no ref "${values['key-ref']}" (refs: ${Object.keys(refs).join(', ')})`);
  const port = await service.listen(0, '127.0.0.1');
  announce({ port, uws: uwsImplementation(), apiKey, facts: { durability: service.services.config.durability } });
} catch (error) {
  process.stderr.write(`switchyard bench server: ${error instanceof Error ? error.message : String(error)}\n`);
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(1);
}
