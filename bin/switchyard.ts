#!/usr/bin/env node
// The switchyard CLI: `start` serves the API, `apply` loads a workspace manifest into a database.
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { createService } from '../http/service.js';
import { configFromEnv } from '../runtime/config.js';
import { seedDemo } from '../runtime/demo.js';
import { loadManifestFile } from '../runtime/manifest/load.js';

const USAGE = `Usage:
  switchyard start [--db FILE] [--host HOST] [--port N] [--manifest FILE]
  switchyard apply FILE [--db FILE]

Environment variables are listed in README.md ("Configuration").`;

/** The project's own demo workspace, seeded by a bare `start` (see README "Quick start"). */
const DEMO_MANIFEST = findUp('examples/demo.workspace.json');

/** The file relative to the package root, whether this runs from dist/bin (built) or bin (tsx). */
function findUp(relative: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return join(process.cwd(), relative);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { db: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' }, manifest: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help || !command || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  const config = configFromEnv();
  if (values.db) config.dbPath = values.db;
  if (values.host) config.host = values.host;
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError('--port must be a port number');
    config.port = port;
  }

  if (command === 'apply') {
    const file = positionals[0];
    if (!file) throw new CliError('apply needs a manifest FILE');
    const manifest = loadManifestFile(file);
    const service = await createService({ config: { ...config, logLevel: 'warn' } });
    try {
      const result = await service.applyManifest(manifest);
      process.stdout.write(`${JSON.stringify({ refs: result.refs }, null, 2)}\n`);
    } finally {
      await service.close();
    }
    return 0;
  }

  if (command === 'start') {
    const manifest = values.manifest ? loadManifestFile(values.manifest) : null;
    const service = await createService({ config });
    if (manifest) await service.applyManifest(manifest);
    const port = await service.listen(config.port, config.host);
    const base = config.publicUrl ?? `http://${config.host}:${port}`;
    if (!values.manifest && existsSync(DEMO_MANIFEST)) {
      const demo = await seedDemo(service, loadManifestFile(DEMO_MANIFEST));
      process.stdout.write(demo.banner(base));
    } else {
      process.stdout.write(`Switchyard listening on ${base}\n`);
    }
    const stop = async (signal: string): Promise<void> => {
      process.stdout.write(`\n${signal}: shutting down…\n`);
      await service.close();
      process.exit(0);
    };
    process.once('SIGINT', () => void stop('SIGINT'));
    process.once('SIGTERM', () => void stop('SIGTERM'));
    return -1;
  }
  throw new CliError(`unknown command "${command}"\n${USAGE}`);
}

class CliError extends Error {}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`switchyard: ${message}\n`);
    process.exitCode = error instanceof CliError ? 2 : 1;
  },
);
