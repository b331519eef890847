// Renders RESULTS.md: how to reproduce, the exact command and machine of this run, the table, and what failed.
import { DEFAULT_OUT, USAGE } from './args.js';
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
  return `${HOW_TO}\n\n## Last run\n\n${facts.map(([label, value]) => `- ${label}: ${value}`).join('\n')}\n\n${report.table}${failures}\n`;
}

/** `npm run bench -- ...` when run through npm, else the node command line. */
export function commandLine(argv: string[]): string {
  const quoted = argv.map((arg) => (/^[\w./=:-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`));
  if (process.env.npm_lifecycle_event === 'bench') return ['npm run bench', ...(quoted.length > 0 ? ['--', ...quoted] : [])].join(' ');
  return ['node --import tsx bench/run.ts', ...quoted].join(' ');
}
