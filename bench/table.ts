// The results table as markdown, and its parser (so tests and tools read RESULTS.md back as rows).
import type { Row } from './scenario.js';

const HEADER = ['scenario', 'target', 'req/s', 'p50 ms', 'p99 ms', '× baseline', 'errors', 'non-2xx', 'notes'];
const ALIGN = ['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---'];
const NONE = '—';

/** Whole numbers from 100 up; three significant digits below (micro-bench latencies are fractions of a ms). */
const num = (n: number): string => (Math.abs(n) >= 100 ? String(Math.round(n)) : String(Number(n.toPrecision(3))));
const cell = (text: string): string => text.replaceAll('|', '\\|');

export function formatTable(rows: Row[]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  const body = rows.map((row) =>
    line([
      cell(row.scenario),
      cell(row.target),
      num(row.reqPerSec),
      num(row.p50ms),
      num(row.p99ms),
      row.ratioToBaseline === null ? NONE : row.ratioToBaseline.toFixed(2),
      String(row.errors),
      String(row.non2xx),
      cell(row.note ?? ''),
    ]),
  );
  return [line(HEADER), line(ALIGN), ...body].join('\n');
}

/** Reads the first results table in `markdown`; throws when a row does not have the shape formatTable writes. */
export function parseTable(markdown: string): Row[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => splitRow(l).join('|') === HEADER.join('|'));
  if (start < 0) throw new Error('no results table found');
  const rows: Row[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = splitRow(line);
    if (cells.length !== HEADER.length) throw new Error(`table row has ${cells.length} cells, expected ${HEADER.length}: ${line}`);
    const [scenario, target, reqPerSec, p50ms, p99ms, ratio, errors, non2xx, note] = cells;
    const row: Row = {
      scenario,
      target,
      reqPerSec: number(reqPerSec, line),
      p50ms: number(p50ms, line),
      p99ms: number(p99ms, line),
      ratioToBaseline: ratio === NONE ? null : number(ratio, line),
      errors: number(errors, line),
      non2xx: number(non2xx, line),
    };
    if (note) row.note = note;
    rows.push(row);
  }
  return rows;
}

function splitRow(line: string): string[] {
  const trimmed = line.trim();
  if (!trimmed.startsWith('|') || !trimmed.endsWith('|')) return [];
  return trimmed
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replaceAll('\\|', '|'));
}

function number(text: string, line: string): number {
  const value = Number(text);
  if (text === '' || !Number.isFinite(value)) throw new Error(`"${text}" is not a number in: ${line}`);
  return value;
}
