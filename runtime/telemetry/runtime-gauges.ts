// Gauges computed at scrape time from state the runtime already keeps: no counting on hot paths.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { PortRepositories } from '../../storage/port/storage.js';
import type { UnitWriterStats } from '../../storage/port/unit.js';
import type { ActorRegistry } from '../actors/index.js';
import type { Clock } from '../clock.js';
import { BATCH_UNITS, COMMIT_SECONDS } from './buckets.js';

/**
 * What a writer that keeps per-batch samples adds to its stats (SQLite's group commit, storage/group-commit.ts):
 * the composition root hands it over when that writer runs; the port's writer stats have only the totals.
 */
export interface WriterSamples {
  /** Units refused for awaiting I/O inside the write transaction. */
  readonly spannedTurns: number;
  /** Recent batches as [units, seconds], drained by each scrape. */
  readonly samples: Array<[number, number]>;
  /** SQLite with a second writing connection (execution thread): batches retried because the write lock was held. */
  readonly busyRetries?: number;
}

/** What the scrape reads; each is a live object of one service instance. */
export interface GaugeSources {
  repos: Pick<PortRepositories, 'gauges' | 'snapshots'>;
  writer: { readonly stats: UnitWriterStats };
  /** Absent on a writer that keeps no samples: the spanned-turn counter stays 0 and the histograms empty. */
  writerSamples?: WriterSamples;
  actors: Pick<ActorRegistry, 'residentCount'>;
  mcpSessions: { readonly size: number };
}

export function registerRuntimeGauges(registry: Registry, clock: Clock, sources: GaugeSources): void {
  const { repos, writer, actors } = sources;
  const registers = [registry];

  new Gauge({ name: 'switchyard_mcp_sessions', help: 'Open MCP protocol sessions (Mcp-Session-Id).', registers, collect() { this.set(sources.mcpSessions.size); } });
  new Gauge({ name: 'switchyard_actors_resident', help: 'Actors held in memory.', registers, collect() { this.set(actors.residentCount); } });
  new Gauge({
    name: 'switchyard_actors_active',
    help: 'Actors with an unfinished stored snapshot, by machine kind (resident or passivated).',
    labelNames: ['kind'],
    registers,
    async collect() {
      const kinds = await repos.snapshots.activeKinds();
      this.reset();
      for (const { machine, count } of kinds) this.set({ kind: machine }, count);
    },
  });
  new Gauge({
    name: 'switchyard_actors_passivated',
    help: 'Unfinished actors not held in memory (rehydrated from their snapshot on demand).',
    registers,
    async collect() {
      const active = (await repos.snapshots.activeKinds()).reduce((sum, row) => sum + row.count, 0);
      this.set(Math.max(0, active - actors.residentCount));
    },
  });
  new Gauge({
    name: 'switchyard_timers_due',
    help: 'Durable timers past their due time and not yet fired, by kind.',
    labelNames: ['kind'],
    registers,
    async collect() {
      const due = await repos.gauges.dueTimers(clock.now());
      this.reset();
      for (const { kind, count } of due) this.set({ kind }, count);
    },
  });
  new Gauge({
    name: 'switchyard_executions_unsettled',
    help: 'Executions (agent turns and flow runs) by queue state: queued, resume_queued (waiting) or running.',
    labelNames: ['status'],
    registers,
    async collect() {
      const counts = new Map((await repos.gauges.unsettledExecutions()).map((row) => [row.status, row.count]));
      for (const status of ['queued', 'resume_queued', 'running']) this.set({ status }, counts.get(status) ?? 0);
    },
  });
  new Gauge({ name: 'switchyard_webhook_backlog', help: 'Outbound webhook deliveries waiting for an attempt (pending).', registers, async collect() { this.set(await repos.gauges.pendingDeliveries()); } });
  registerGroupCommit(registers, writer.stats, sources.writerSamples);
}

/** The writer keeps totals and recent samples; the scrape turns them into counters and drains the samples. */
function registerGroupCommit(registers: Registry[], stats: UnitWriterStats, samples: WriterSamples | undefined): void {
  const total = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  total('switchyard_group_commit_batches_total', 'Group-commit transactions.', () => stats.batches);
  total('switchyard_group_commit_units_total', 'Units of work committed (requests and runtime writes sharing the transactions).', () => stats.units);
  total('switchyard_group_commit_seconds_total', 'Time spent in group-commit transactions, fsync included.', () => stats.seconds);
  total('switchyard_group_commit_busy_retries_total', 'Group-commit batches put back for a later try because another connection held the SQLite write lock (execution thread mode).', () => samples?.busyRetries ?? 0);
  total('switchyard_group_commit_spanned_turns_total', 'Units of work refused for awaiting I/O inside the write transaction (a bug to fix).', () => samples?.spannedTurns ?? 0);
  // Registered (so collected) before the batch-size histogram it feeds: both show the same batches in one scrape.
  new Histogram({
    name: 'switchyard_group_commit_duration_seconds',
    help: 'Group-commit transaction time, fsync included.',
    buckets: COMMIT_SECONDS,
    registers,
    collect() {
      const drained = samples === undefined ? [] : samples.samples.splice(0, samples.samples.length);
      for (const [units, seconds] of drained) {
        sizes.observe(units);
        this.observe(seconds);
      }
    },
  });
  const sizes = new Histogram({ name: 'switchyard_group_commit_batch_size', help: 'Units of work per group-commit transaction.', buckets: BATCH_UNITS, registers });
}
