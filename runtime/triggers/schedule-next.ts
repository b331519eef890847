// Owns "when does this schedule trigger fire next": croner in the trigger's IANA time zone (UTC when none is set).
import { Cron } from 'croner';

export interface ScheduleConfig {
  readonly cron: string;
  /** IANA zone; null means UTC (never the server's local zone, which would move with the host). */
  readonly timezone: string | null;
  readonly input: Record<string, unknown>;
}

/** The first slot strictly after `afterMs`, or null when the pattern never fires again (e.g. `0 0 30 2 *`). */
export function nextRunAfter(config: Pick<ScheduleConfig, 'cron' | 'timezone'>, afterMs: number): number | null {
  // paused: croner computes dates only; it never arms its own in-memory timer (ticks are durable timers).
  const cron = new Cron(config.cron, { timezone: config.timezone ?? 'UTC', paused: true });
  return cron.nextRun(new Date(afterMs))?.getTime() ?? null;
}

/** Reads the config of a schedule trigger (written by the manifest and by POST /triggers alike). */
export function scheduleConfigOf(parsed: Readonly<Record<string, unknown>>): ScheduleConfig {
  return {
    cron: String(parsed.cron),
    timezone: typeof parsed.timezone === 'string' ? parsed.timezone : null,
    input: typeof parsed.input === 'object' && parsed.input !== null && !Array.isArray(parsed.input) ? (parsed.input as Record<string, unknown>) : {},
  };
}
