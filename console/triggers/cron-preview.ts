// The next runs of a cron pattern in a time zone, checked and computed with croner as the service does
// (runtime/manifest/trigger.schema.ts, runtime/triggers/schedule-next.ts), so the form agrees with the server.
import { Cron } from 'croner';

export type Preview = { ok: true; runs: Date[] } | { ok: false; field: 'cron' | 'timezone'; message: string };

/** The service's own IANA check: Intl knows the zone, and offset forms such as "+01:00" are refused. */
export function isIanaTimeZone(zone: string): boolean {
  if (!/^[A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)*$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Up to `count` slots after `from`; an empty zone means UTC (as the service reads a trigger without one). */
export function previewCron(pattern: string, zone: string, count = 5, from = new Date()): Preview {
  const cron = pattern.trim();
  if (cron === '') return { ok: false, field: 'cron', message: 'Enter a cron pattern, for example "30 9 * * 1-5" (09:30 on weekdays).' };
  if (cron.length > 200) return { ok: false, field: 'cron', message: 'A cron pattern has at most 200 characters.' };
  if (zone !== '' && !isIanaTimeZone(zone)) {
    return { ok: false, field: 'timezone', message: `"${zone}" is not an IANA time zone. Use a name such as Europe/Paris or America/New_York.` };
  }
  try {
    // paused: compute dates only, never arm a timer in the page.
    const runs = new Cron(cron, { timezone: zone || 'UTC', paused: true }).nextRuns(count, from);
    return { ok: true, runs };
  } catch (error) {
    return { ok: false, field: 'cron', message: `Not a valid cron pattern: ${(error as Error).message}` };
  }
}

/** Every IANA zone this browser knows, for the time zone field's suggestions ("UTC" first). */
export function knownTimeZones(): string[] {
  const supported = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return ['UTC', ...supported.filter((zone) => zone !== 'UTC')];
}

export const viewerTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A time as it reads in `zone` (weekday, date, time and the zone's abbreviation). */
export function formatIn(date: Date, zone: string): string {
  return new Intl.DateTimeFormat(undefined, { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: zone || 'UTC', timeZoneName: 'short' }).format(date);
}
