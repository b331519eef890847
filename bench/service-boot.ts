// Boots the service under test for a bench/servers/ child: the embedding API on a temp file DB seeded from a manifest.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createService, type Service } from '../index.js';
import type { ServiceConfig } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { loadManifestFile } from '../runtime/manifest/load.js';
import { announce, exitWithParent } from './child-lifecycle.js';
import { REPO_ROOT } from './children.js';

export interface BenchServiceOptions {
  /** The server's name: its temp directory and its error line carry it. */
  readonly name: string;
  /** Manifest path relative to the repo root. */
  readonly manifest: string;
  /** Settings over the bench defaults (rate limits off). */
  readonly config?: Partial<ServiceConfig>;
  /** Runs before the manifest is applied (e.g. keep sessions from reaching their engines), and again after a restart. */
  prepare?(service: Service): void;
  /**
   * Fills the database after the manifest (e.g. a stored history); the service then closes and boots again over the
   * file, as a long-running server restarted over its database would, so no seeding state (heap, caches, WAL) remains
   * in the process under load. Returns facts for the results table (added to the ready line's `facts`).
   */
  seed?(service: Service, refs: Record<string, string>): Record<string, string>;
  /** HTTP adapter setting for the service (default auto). */
  readonly httpAdapter?: 'auto' | 'uws' | 'node';
  /** The ready line's fields after port and adapter: the refs the client needs and facts for the results table; may throw. */
  ready(service: Service, refs: Record<string, string>): Record<string, unknown>;
}

/** Boots, seeds, listens on 127.0.0.1 (any port) and announces; on any failure cleans up and exits 1. */
export async function bootBenchService(options: BenchServiceOptions): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `${options.name}-bench-`));
  let service: Service | undefined;
  exitWithParent(async () => {
    await service?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  try {
    const manifest = loadManifestFile(resolve(REPO_ROOT, options.manifest));
    // Rate limits off: the bench measures the request path, not the token buckets saying 429.
    // Logs go to stderr so stdout carries only the ready line; warn level keeps per-request logging off the hot path.
    const boot = async (): Promise<Service> => {
      const booted = await createService({
        dbPath: join(dir, 'bench.db'),
        logger: createLogger('warn', pino.destination(2)),
        config: { keyRateLimit: { ratePerSecond: 0, burst: 0 }, ipRateLimit: { ratePerSecond: 0, burst: 0 }, httpAdapter: options.httpAdapter ?? 'auto', ...options.config },
      });
      options.prepare?.(booted);
      return booted;
    };
    service = await boot();
    const { refs } = await service.applyManifest(manifest);
    let seeded: Record<string, string> = {};
    if (options.seed) {
      seeded = options.seed(service, refs);
      await service.close();
      service = await boot();
    }
    const ready = options.ready(service, refs);
    const fields = options.seed ? { ...ready, facts: { ...(ready.facts as Record<string, string> | undefined), ...seeded } } : ready;
    const port = await service.listen(0, '127.0.0.1');
    announce({ port, adapter: service.adapter, ...fields });
  } catch (error) {
    process.stderr.write(`${options.name} bench server: ${error instanceof Error ? error.message : String(error)}\n`);
    await service?.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(1);
  }
}

/** The demo-manifest service (`switchyard*` servers): args [--manifest FILE] [--key-ref REF] [--adapter auto|uws|node]. */
export async function bootDemoBenchService(name: string, argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      manifest: { type: 'string', default: 'examples/demo.workspace.json' },
      'key-ref': { type: 'string', default: 'demo-key' },
      adapter: { type: 'string', default: 'auto' },
    },
  });
  const adapter = values.adapter;
  if (adapter !== 'auto' && adapter !== 'uws' && adapter !== 'node') throw new Error(`--adapter must be auto, uws or node, got "${adapter}"`);
  await bootBenchService({
    name,
    manifest: values.manifest,
    httpAdapter: adapter,
    ready(service, refs) {
      const apiKey = refs[values['key-ref']];
      if (!apiKey) throw new Error(`the manifest produced no ref "${values['key-ref']}" (refs: ${Object.keys(refs).join(', ')})`);
      return { apiKey, facts: { durability: service.services.config.durability } };
    },
  });
}
