// Owns finding this package's own files at run time: from bin/ (tsx), dist/bin/ (built) or an installed copy.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

/** The folder holding this package's package.json (never the caller's working directory). */
export const packageRoot = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

export const packageFile = (relative: string): string => join(packageRoot, relative);

export function packageVersion(): string {
  return (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }).version;
}
