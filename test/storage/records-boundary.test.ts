// Guards issue 12 item 8: no SQL row shapes above storage/ (docs/decisions.md "Storage speaks domain records").
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import t from 'tap';

const ROOT = join(import.meta.dirname, '..', '..');
const SCANNED = ['runtime', 'http', 'bin', 'bench', 'test', 'machines', 'scripts', 'console', 'index.ts'];

/**
 * Repositories that still return SQL rows, and may still be imported for their `*Row` types. This list only shrinks:
 * convert a repo (records in storage/records/, a private row type, fromRow/toRow), then remove it here.
 */
const NOT_YET_CONVERTED: ReadonlySet<string> = new Set([
  // Empty since every repository returns records; a repository added with SQL row types goes here only while converted.
]);

function sourceFiles(path: string): string[] {
  const full = join(ROOT, path);
  const stat = statSync(full, { throwIfNoEntry: false });
  if (stat === undefined) return [];
  if (stat.isFile()) return /\.tsx?$/.test(path) ? [path] : [];
  return readdirSync(full)
    .filter((name) => name !== 'node_modules' && name !== 'dist')
    .flatMap((name) => sourceFiles(join(path, name)));
}

const IMPORT = /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'([^']*storage\/repos\/([\w-]+)\.repo\.js)'/g;

/** `file: Name from repo` for every `*Row` name imported from a repository that is not on the list. */
export function rowImports(file: string, text: string, allowed: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const [, names, , repo] of text.matchAll(IMPORT)) {
    if (allowed.has(repo)) continue;
    for (const name of names.split(',').map((n) => n.replace(/^\s*type\s+/, '').trim().split(/\s+as\s+/)[0])) {
      if (/Row$/.test(name)) found.push(`${file}: ${name} from ${repo}.repo`);
    }
  }
  return found;
}

t.test('no module outside storage/ imports a *Row type from a converted repository', async (t) => {
  const files = SCANNED.flatMap(sourceFiles);
  t.ok(files.length > 100, `scanned ${files.length} files`);
  const offenders = files.flatMap((file) => rowImports(file.split(sep).join('/'), readFileSync(join(ROOT, file), 'utf8'), NOT_YET_CONVERTED));
  t.same(offenders, [], 'import the record from storage/records/ instead');
});

t.test('a converted repository exports no *Row type, and every listed repository exists', async (t) => {
  const dir = join(ROOT, 'storage', 'repos');
  const repos = readdirSync(dir).filter((name) => name.endsWith('.repo.ts')).map((name) => name.replace(/\.repo\.ts$/, ''));
  for (const listed of NOT_YET_CONVERTED) t.ok(repos.includes(listed), `${listed}.repo.ts exists (remove it from the list once gone)`);
  const exported = repos
    .filter((repo) => !NOT_YET_CONVERTED.has(repo))
    .flatMap((repo) => {
      const text = readFileSync(join(dir, `${repo}.repo.ts`), 'utf8');
      return [...text.matchAll(/export\s+(?:interface|type)\s+(\w+Row)\b/g)].map(([, name]) => `${relative(ROOT, dir)}/${repo}.repo.ts: ${name}`);
    });
  t.same(exported, [], 'keep the row type private to the repository; export the record from storage/records/');
});

t.test('the guard sees a row import, type-only or aliased, and lets an unconverted one pass', async (t) => {
  // Paths built at run time, so this file's own text holds no import the first test would find.
  const from = (repo: string) => `'../../storage/repos/${repo}.repo.js'`;
  const text = `import type { Foo, type BarRow as B } from ${from('tenancy')};\nimport { SessionRow } from ${from('sessions')};`;
  t.same(rowImports('x.ts', text, new Set(['sessions'])), ['x.ts: BarRow from tenancy.repo']);
  t.same(rowImports('x.ts', text, new Set(['sessions', 'tenancy'])), []);
});
