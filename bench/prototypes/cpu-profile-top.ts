// Sums a `node --cpu-prof` profile by function (self time, and inclusive time) over an optional window, and prints
// the top entries as shares of the sampled time. A prototype helper for accept-profile.ts, not service code.
/*
 * node --import tsx bench/prototypes/cpu-profile-top.ts PROFILE.cpuprofile [--window window.json] [--top 40]
 *   [--inclusive] [--match TEXT]
 * window.json: { startUs, endUs } on the profile's clock (monotonic µs), written by accept-profile.ts.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { window: { type: 'string' }, top: { type: 'string', default: '40' }, inclusive: { type: 'boolean', default: false }, match: { type: 'string' }, callers: { type: 'string' } },
});
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Profile;
const window = values.window ? (JSON.parse(readFileSync(values.window, 'utf8')) as { startUs: number; endUs: number }) : null;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const key = (n: Node): string => {
  const f = n.callFrame;
  const file = f.url ? `${basename(f.url.replace(/\?.*$/, ''))}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${file}`.trim();
};
const self = new Map<string, number>();
const incl = new Map<string, number>();
let total = 0;
let idle = 0;
let t = profile.startTime;
for (let i = 0; i < profile.samples.length; i += 1) {
  t += profile.timeDeltas[i]!;
  if (window && (t < window.startUs || t > window.endUs)) continue;
  // A sample's weight: the gap to the next sample (the last one gets the previous gap).
  const dt = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i]!;
  const node = byId.get(profile.samples[i]!)!;
  const name = key(node);
  if (node.callFrame.functionName === '(idle)') {
    idle += dt;
    continue;
  }
  total += dt;
  self.set(name, (self.get(name) ?? 0) + dt);
  const seen = new Set<string>();
  for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
    const k = key(byId.get(id)!);
    if (seen.has(k)) continue;
    seen.add(k);
    incl.set(k, (incl.get(k) ?? 0) + dt);
  }
}
// --callers NAME: time under frames named NAME (outermost occurrence), split by the frame that called it.
const callers = new Map<string, number>();
if (values.callers) {
  let t2 = profile.startTime;
  for (let i = 0; i < profile.samples.length; i += 1) {
    t2 += profile.timeDeltas[i]!;
    if (window && (t2 < window.startUs || t2 > window.endUs)) continue;
    const dt = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i]!;
    let found: string | null = null;
    for (let id: number | undefined = profile.samples[i]!; id !== undefined; id = parent.get(id)) {
      if (key(byId.get(id)!).startsWith(values.callers)) {
        const p = parent.get(id);
        found = p === undefined ? '(none)' : key(byId.get(p)!);
      }
    }
    if (found !== null) callers.set(found, (callers.get(found) ?? 0) + dt);
  }
}
const table = values.callers ? callers : values.inclusive ? incl : self;
const rows = [...table.entries()].filter(([k]) => !values.match || k.includes(values.match)).sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
process.stdout.write(`busy ${(total / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s (${values.inclusive ? 'inclusive' : 'self'} shares of busy)\n`);
for (const [k, v] of rows) process.stdout.write(`${((v / total) * 100).toFixed(1).padStart(5)} %  ${(v / 1e3).toFixed(0).padStart(7)} ms  ${k}\n`);
