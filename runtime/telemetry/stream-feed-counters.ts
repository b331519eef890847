// Counters of the cross-node stream feed (runtime/events/session-feed.ts), read from its totals at scrape time.
import { Counter, type Registry } from 'prom-client';
import type { SessionFeedStats } from '../events/session-feed.js';

/** Registered only where other nodes write (a feed runs): on SQLite these series do not exist. */
export function registerStreamFeedCounters(registry: Registry, read: () => SessionFeedStats | null): void {
  if (read() === null) return;
  const total = (name: string, help: string, field: keyof SessionFeedStats) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read()?.[field] ?? 0);
      },
    });
  total('switchyard_stream_signals_total', 'Cross-node session event signals heard (LISTEN/NOTIFY), for any session.', 'signals');
  total('switchyard_stream_resyncs_total', 'Times the signal connection came back and every streamed session was read again.', 'resyncs');
  total('switchyard_stream_feed_reads_total', "Table reads bringing other nodes' events to this node's streams.", 'reads');
  total('switchyard_stream_feed_events_total', 'Events those reads returned.', 'readEvents');
  total('switchyard_stream_feed_read_errors_total', 'Feed reads that failed (retried after a second).', 'readErrors');
}
