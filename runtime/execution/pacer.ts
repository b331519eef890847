// Time slices for execution work on the accept loop: past a slice of CPU, yield so I/O (HTTP, SSE) gets its turn.
/*
 * Turns are promise chains: once hundreds of them are runnable, their synchronous parts run back to back in one
 * phase of the event loop, and /healthz waited hundreds of milliseconds behind them (issue 12). Each execution
 * step awaits `pace()` first. Inside a fresh slice with nobody waiting it returns a resolved promise. Otherwise
 * the caller joins a FIFO queue; waiters are released one at a time from microtasks while the slice lasts, and
 * once it is used up the rest wait for setImmediate, which Node runs only after the poll phase has served
 * pending I/O. Releasing one at a time matters: releasing all at once would run every waiter's next chunk in one
 * microtask drain, which is the stall this exists to prevent.
 */
export interface Pacer {
  /** Resolves at once inside the current slice; otherwise in FIFO order, after the next I/O poll if needed. */
  pace(): Promise<void>;
}

const NOW = (): number => performance.now();

export function createPacer(sliceMs = 4, now: () => number = NOW): Pacer {
  let sliceStart = now();
  const waiting: Array<() => void> = [];
  let scheduled = false;
  const resolved = Promise.resolve();

  function releaseNext(): void {
    if (waiting.length === 0) return;
    if (now() - sliceStart >= sliceMs) return schedule();
    waiting.shift()!();
    // Runs after the released waiter's continuation (queued first): one chunk of work, then the next waiter.
    queueMicrotask(releaseNext);
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      sliceStart = now();
      releaseNext();
    });
  }

  return {
    pace() {
      if (waiting.length === 0 && now() - sliceStart < sliceMs) return resolved;
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (now() - sliceStart < sliceMs) queueMicrotask(releaseNext);
        else schedule();
      });
    },
  };
}
