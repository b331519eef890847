// Owns reading a manifest file for the CLI: JSON syntax errors reported with line, column and offset.
import { readFileSync } from 'node:fs';
import { ManifestError } from './manifest-error.js';
import { parseManifest, type ParseManifestOptions } from './parse.js';
import type { WorkspaceManifest } from './workspace.schema.js';

/** Line and column (1-based) of a character offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** JSON.parse with a ManifestError that points at the offending position. */
export function parseManifestJson(text: string, source?: string): unknown {
  try {
    // A UTF-8 byte order mark is legal in files but not in JSON.parse input.
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const match = /position (\d+)/.exec(detail);
    // V8 omits the position for a truncated document; the problem is then at the end.
    const offset = match ? Number(match[1]) : text.length;
    const { line, column } = lineColumn(text, offset);
    // The detail may quote a snippet of the file; it is the author's own text, so that is safe to show.
    const reason = detail.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
    throw new ManifestError([{ path: '(root)', message: `invalid JSON at line ${line}, column ${column} (offset ${offset}): ${reason}` }], source);
  }
}

/** Reads, parses and checks a manifest file; throws ManifestError (unreadable file, bad JSON, or invalid manifest). */
export function loadManifestFile(path: string, options: Omit<ParseManifestOptions, 'source'> = {}): WorkspaceManifest {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ManifestError([{ path: '(root)', message: `cannot read the file (${code})` }], path);
  }
  return parseManifest(parseManifestJson(text, path), { ...options, source: path });
}
