// The parent side of bench/sse-client-child.ts's protocol: its JSON report lines, awaited by type.
import { createInterface } from 'node:readline';
import type { Child } from './children.js';
import type { SseClientReport } from './sse-client-child.js';

/** Reads the child's JSON report lines; `next(type)` waits for the next report of that type. */
export function reports(child: Child) {
  const queue: SseClientReport[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: child.process.stdout! }).on('line', (line) => {
    queue.push(JSON.parse(line) as SseClientReport);
    waiters.splice(0).forEach((wake) => wake());
  });
  return async function next<T extends SseClientReport['type']>(type: T, timeoutMs: number): Promise<Extract<SseClientReport, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = queue.findIndex((r) => r.type === type);
      if (index >= 0) return queue.splice(index, 1)[0] as Extract<SseClientReport, { type: T }>;
      if (Date.now() > deadline) throw new Error(`bench client sent no "${type}" report within ${timeoutMs} ms: ${child.stderrTail()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
}
