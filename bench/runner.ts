// Runs the selected scenarios in order, one server at a time, and reports the table (stdout and RESULTS.md).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseBenchArgs, USAGE, type BenchOptions } from './args.js';
import { killChildrenOnExit, REPO_ROOT } from './children.js';
import { loadServer } from './load.js';
import { clientFacts, loadAtEnd, machineFacts } from './machine.js';
import { commandLine, keptSections, renderResults, renderSection, replaceSection } from './results.js';
import { startServer, stopServer } from './server-process.js';
import type { BenchContext, HttpScenario, Row, RunningServer, Scenario } from './scenario.js';
import { formatTable } from './table.js';

/** A bench command that owns one section of the results file instead of the whole file (`npm run bench:pg`). */
export interface SectionOptions {
  /** The section's heading; also its marker in the file. */
  title: string;
  /** How to reproduce it and what the rows measure (markdown). */
  intro: string;
  /** The npm script name, for the command line recorded beside the figures. */
  script: string;
}

/** Runs the benchmark; resolves with the process exit code (1 when any scenario failed). */
export async function runBench(scenarios: Scenario[], argv: string[], section?: SectionOptions): Promise<number> {
  const options = parseBenchArgs(argv);
  if (options.help) {
    process.stdout.write(`${USAGE}\n\nScenarios: ${scenarios.map((s) => s.name).join(', ')}\n`);
    return 0;
  }
  killChildrenOnExit();
  const selected = scenarios.filter((s) => options.only.length === 0 || options.only.some((part) => s.name.includes(part)));
  if (selected.length === 0) throw new Error(`no scenario matches --only ${options.only.join(', ')}`);

  const date = new Date();
  const facts = [...machineFacts(), ...clientFacts(options.connections, options.durationSec, options.warmupSec)];
  const rows: Row[] = [];
  const failures: string[] = [];
  const servers = new Map<string, Record<string, string>>();
  const started = new Set<RunningServer>();
  const ctx: BenchContext = {
    durationSec: options.durationSec,
    connections: options.connections,
    quick: options.quick,
    targets: options.targets,
    async startServer(name, args, placement) {
      const server = await startServer(name, args, placement);
      started.add(server);
      servers.set(name, { adapter: server.ready.adapter, ...server.ready.facts });
      return server;
    },
    async stopServer(server) {
      started.delete(server);
      await stopServer(server);
    },
    load: (scenario, server, request, overrides) =>
      loadServer(scenario, server, request, {
        ...options,
        connections: overrides?.connections ?? options.connections,
        warmupSec: overrides?.warmupSec ?? options.warmupSec,
      }),
  };

  for (const scenario of selected) {
    const fail = (message: string): void => {
      failures.push(`${scenario.name}: ${message}`);
      process.stderr.write(`${scenario.name} failed: ${message}\n`);
    };
    try {
      const produced = scenario.kind === 'http' ? await runHttp(scenario, ctx, options, fail) : await scenario.run(ctx);
      for (const row of produced) process.stderr.write(`${row.scenario} / ${row.target}: ${Math.round(row.reqPerSec)} req/s\n`);
      rows.push(...produced);
    } catch (error) {
      fail(messageOf(error));
    } finally {
      // Whatever a scenario left running stops before the next one loads the server core.
      for (const server of [...started]) await ctx.stopServer(server);
    }
  }

  const run = { command: commandLine(argv, section?.script), date, facts: [...facts, ...loadAtEnd()], servers, table: formatTable(rows), failures };
  const report = section ? renderSection(section.title, section.intro, run) : renderResults(run);
  process.stdout.write(report);
  if (options.out !== null) {
    const path = resolve(REPO_ROOT, options.out);
    const existing = existsSync(path) ? readFileSync(path, 'utf8') : '';
    // Each command rewrites only what it measured: its own section, or everything but the other commands' sections.
    writeFileSync(path, section ? replaceSection(existing, section.title, report) : `${report}${keptSections(existing)}`);
    process.stderr.write(`wrote ${options.out}\n`);
  }
  return failures.length > 0 || rows.length === 0 ? 1 : 0;
}

/** Target first, then its baseline, each on a fresh server; one side failing still leaves the other's row. */
async function runHttp(scenario: HttpScenario, ctx: BenchContext, options: BenchOptions, fail: (message: string) => void): Promise<Row[]> {
  const sides = [scenario.target, scenario.baseline].filter((side) => side !== undefined);
  const wanted = sides.filter((side) => options.targets.length === 0 || options.targets.includes(side.server));
  const rows: Row[] = [];
  for (const side of wanted) {
    let server: RunningServer | undefined;
    try {
      server = await ctx.startServer(side.server);
      const request = await side.request(server);
      rows.push(await ctx.load(scenario.name, server, request, { connections: scenario.connections }));
    } catch (error) {
      fail(`${side.server}: ${messageOf(error)}`);
    } finally {
      if (server) await ctx.stopServer(server);
    }
  }
  const baseline = scenario.baseline && rows.find((row) => row.target === scenario.baseline?.server);
  if (baseline && baseline.reqPerSec > 0) for (const row of rows) row.ratioToBaseline = row.reqPerSec / baseline.reqPerSec;
  return rows;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
