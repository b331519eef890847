// Renders RESULTS.md: how to reproduce, the exact command and machine of this run, the table, and what failed.
import { relative } from 'node:path';
import { DEFAULT_OUT, USAGE } from './args.js';
import { REPO_ROOT } from './children.js';
import type { Facts } from './machine.js';

export interface RunReport {
  command: string;
  date: Date;
  facts: Facts;
  /** bench/servers/ name -> what its process reported (uWS implementation, durability, ...). */
  servers: Map<string, Record<string, string>>;
  table: string;
  failures: string[];
}

const HOW_TO = `# Benchmark results

Written by \`npm run bench\` (bench/run.ts); rerun it rather than editing the figures by hand.

## How to reproduce

\`\`\`
npm ci
npm run bench                    # every scenario, rewrites ${DEFAULT_OUT}
${USAGE}
\`\`\`

Each HTTP scenario loads the Switchyard service (\`bench/servers/switchyard.ts\`: the embedding API on a
temporary file database seeded from \`examples/demo.workspace.json\`, rate limits off) and then its
baseline (\`bench/servers/baseline-uws.ts\`: a bare uWebSockets.js hello-world) with the same request,
one server at a time. The \`node:http\` rows do the same on the node:http adapter (\`switchyard-node\`) against a
bare node:http hello-world (\`baseline-node\`); each server's adapter is listed under "Last run". Servers run in a child process pinned to one core and autocannon runs in another
child process pinned to the other core, so client and server never share an event loop or a core.
A probe request checks the expected status before each load. "× baseline" is req/s divided by the
baseline's req/s in the same run: these machines are noisy, so compare rows of one run, not across runs.`;

export function renderResults(report: RunReport): string {
  return `${HOW_TO}\n\n## Last run\n\n${renderRun(report)}`;
}

/** The facts, the table and the failures of one run, the body of a results section. */
function renderRun(report: RunReport): string {
  const facts = [
    ['command', `\`${report.command}\``],
    ['date', report.date.toISOString()],
    ...report.facts,
    ...[...report.servers].map(([name, values]) => [
      `server ${name}`,
      Object.entries(values)
        .map(([key, value]) => `${key} ${value}`)
        .join(', '),
    ]),
  ];
  const failures =
    report.failures.length === 0
      ? ''
      : `\n\n### Failed scenarios\n\n${report.failures.map((f) => `- ${f.trim().replace(/\s*\n\s*/g, ' / ')}`).join('\n')}`;
  return `${facts.map(([label, value]) => `- ${label}: ${value}`).join('\n')}\n\n${report.table}${failures}\n`;
}

/*
 * A separate bench command (`npm run bench:pg`) owns a section of RESULTS.md: it rewrites only that section, and
 * `npm run bench` keeps it when it rewrites the rest. A section runs from its marker line to the next marker or the end.
 */
const MARKER = (title: string): string => `<!-- bench section: ${title} -->`;
const SECTION_START = /^<!-- bench section: .+ -->$/m;

/** One run rendered as a section titled `title`, with the text on how to reproduce it. */
export function renderSection(title: string, intro: string, report: RunReport): string {
  return `${MARKER(title)}\n## ${title}\n\n${intro}\n\n${renderRun(report)}`;
}

/** `existing` with the section of that title replaced by `section` (appended when absent). */
export function replaceSection(existing: string, title: string, section: string): string {
  const start = existing.indexOf(MARKER(title));
  if (start < 0) return `${existing.trimEnd()}\n\n${section}`;
  const rest = existing.slice(start + MARKER(title).length);
  const next = rest.search(SECTION_START);
  return `${existing.slice(0, start)}${section}${next < 0 ? '' : `\n${rest.slice(next)}`}`;
}

/** The sections of `existing` that separate commands wrote, to carry over into a rewrite by `npm run bench`. */
export function keptSections(existing: string): string {
  const start = existing.search(SECTION_START);
  return start < 0 ? '' : `\n${existing.slice(start)}`;
}

/** `npm run <script> -- ...` when run through npm, else the node command line of `entry`. */
export function commandLine(argv: string[], script = 'bench', entry = process.argv[1] ?? 'bench/run.ts'): string {
  const quoted = argv.map((arg) => (/^[\w./=:-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`));
  if (process.env.npm_lifecycle_event === script) return [`npm run ${script}`, ...(quoted.length > 0 ? ['--', ...quoted] : [])].join(' ');
  return ['node --import tsx', relative(REPO_ROOT, entry) || entry, ...quoted].join(' ');
}
