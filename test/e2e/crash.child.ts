// The service in its own process for the SIGKILL tests: warms up, boots on the order read from stdin, answers "idle".
/*
 * Protocol (test/helpers/crash-harness.ts is the parent side): the modules load first and the child prints
 * `{ warm: true }`, then waits for one JSON line on stdin, its BootOrder, so a standby can be warmed while the
 * previous child still runs and take over the database only once that one is dead. After booting it prints
 * `{ port, refs }`. Each later stdin line `idle` is answered with `{ idle: true }` once no session queue is
 * running and no due timer is in flight.
 * stdin closing (or SIGTERM) is a clean stop; SIGKILL is the crash under test.
 */
import { createInterface } from 'node:readline';
import pino from 'pino';
import { announce, exitWithParent } from '../../bench/child-lifecycle.js';
import { createService, type Service } from '../../http/service.js';
import { testHttpAdapter } from '../helpers/server.js';
import { createLogger } from '../../runtime/logger.js';
import type { BootOrder } from '../helpers/crash-harness.js';

let service: Service | undefined;
exitWithParent(() => service?.close());

const lines = createInterface({ input: process.stdin });
const orders: string[] = [];
let wake: (() => void) | null = null;
lines.on('line', (line) => {
  orders.push(line);
  wake?.();
});
const nextLine = async (): Promise<string> => {
  while (orders.length === 0) await new Promise<void>((resolve) => (wake = resolve));
  return orders.shift()!;
};

announce({ warm: true });
const order = JSON.parse(await nextLine()) as BootOrder;
// The parent moves this process's clock forward between boots, so deadlines fall due while no process runs.
const offset = order.clockOffsetMs;
service = await createService({
  dbPath: order.dbPath,
  ...(order.databaseUrl === undefined ? {} : { databaseUrl: order.databaseUrl }),
  // Thread mode refuses an injected clock (it cannot cross to the worker): those boots run on the system clock.
  ...(order.execution === 'thread' ? {} : { clock: { now: () => Date.now() + offset } }),
  logger: createLogger('warn', pino.destination(2)),
  config: {
    keyRateLimit: { ratePerSecond: 0, burst: 0 },
    ipRateLimit: { ratePerSecond: 0, burst: 0 },
    httpAdapter: testHttpAdapter(),
    ...(order.sessionLeaseMs === undefined ? {} : { pgSessionLeaseMs: order.sessionLeaseMs }),
    ...(order.execution === undefined ? {} : { execution: order.execution }),
  },
});
// Applied on the first boot only: a key's secret is printed once, when it is created.
const refs = order.manifest === undefined ? {} : (await service.applyManifest(order.manifest)).refs;
const port = await service.listen(0, '127.0.0.1');
announce({ port, refs });

for (;;) {
  const command = await nextLine();
  if (command !== 'idle') throw new Error(`unknown command ${command}`);
  const { sessions, scheduler } = service.services;
  // Settling sessions may arm timers and timers may start sessions: loop until neither has anything to do.
  for (;;) {
    await sessions.dispatcher.idle();
    if ((await scheduler.drain()) === 0) break;
  }
  announce({ idle: true });
}
