// Test process: another node appending session events on PostgreSQL (argv: url, count, session ids…), then exiting.
import { ManualClock } from '../../../runtime/clock.js';
import { createSessionEventBus } from '../../../runtime/events/event-bus.js';
import { openPostgresStorage } from '../../../storage/postgres/storage.js';

const [url, count, ...sessions] = process.argv.slice(2);
// The default writer: its batches in flight no longer deadlock on each other (decision "PostgreSQL: concurrent event appends").
const store = await openPostgresStorage({ url: url!, applicationName: 'emit-node' });
const bus = createSessionEventBus({ repo: store.repos.sessionEvents, writer: store.writer, clock: new ManualClock(Date.UTC(2026, 3, 1, 9)) });
const writes: Promise<unknown>[] = [];
for (let i = 0; i < Number(count); i++) writes.push(bus.emit(sessions[i % sessions.length]!, { type: 'session.changed', change: 'renamed' }));
await Promise.all(writes);
await bus.close();
await store.close();
