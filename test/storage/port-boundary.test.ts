// Guards issue 16 item 1: runtime/ and http/ reach storage only through its port and records, so either driver can run under them.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import t from 'tap';

const ROOT = join(import.meta.dirname, '..', '..');
const SCANNED = ['runtime', 'http'];
/** The composition root opens a driver; it alone may name one (bin/ and bench/ are composition roots too). */
const COMPOSITION_ROOTS: ReadonlySet<string> = new Set(['http/service.ts', 'http/storage-driver.ts', 'http/execution-worker.ts']);

function sourceFiles(path: string): string[] {
  const full = join(ROOT, path);
  const stat = statSync(full, { throwIfNoEntry: false });
  if (stat === undefined) return [];
  if (stat.isFile()) return /\.tsx?$/.test(path) ? [path] : [];
  return readdirSync(full).flatMap((name) => sourceFiles(join(path, name)));
}

const STORAGE_IMPORT = /(?:import|export)\s[^;]*?\sfrom\s+'((?:\.\.\/)+storage\/[^']+)'/g;

/** `file: specifier` for every import of storage/ other than its port and its records. */
export function driverImports(file: string, text: string): string[] {
  return [...text.matchAll(STORAGE_IMPORT)]
    .map(([, specifier]) => specifier)
    .filter((specifier) => !/\/storage\/(port|records)\/[\w-]+\.js$/.test(specifier))
    .map((specifier) => `${file}: ${specifier}`);
}

t.test('runtime/ and http/ import from storage/ only storage/port/ and storage/records/', async (t) => {
  const files = SCANNED.flatMap(sourceFiles).map((file) => file.split(sep).join('/'));
  t.ok(files.length > 100, `scanned ${files.length} files`);
  const offenders = files
    .filter((file) => !COMPOSITION_ROOTS.has(file))
    .flatMap((file) => driverImports(file, readFileSync(join(ROOT, file), 'utf8')));
  t.same(offenders, [], 'type the code against storage/port/storage.ts (Storage, PortRepositories, UnitWriter)');
});

t.test('the guard sees a driver import, type-only or re-exported, and lets the port and records pass', async (t) => {
  // Specifiers built at run time, so this file's own text holds no import the first test would find.
  const at = (path: string) => `'../../storage/${path}'`;
  const text = [
    `import type { Repositories } from ${at('repos/index.js')};`,
    `import {\n  createGroupCommitWriter,\n} from ${at('group-commit.js')};`,
    `export type { Store } from ${at('store.js')};`,
    `import type { Storage } from ${at('port/storage.js')};`,
    `import type { Session } from ${at('records/sessions.js')};`,
  ].join('\n');
  t.same(driverImports('x.ts', text), [
    `x.ts: ../../storage/repos/index.js`,
    `x.ts: ../../storage/group-commit.js`,
    `x.ts: ../../storage/store.js`,
  ]);
});
