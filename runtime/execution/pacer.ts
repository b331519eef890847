// Time slices for execution work on the accept loop: past a slice of CPU, yield so I/O (HTTP, SSE) gets its turn.
/*
 * Turns are promise chains: once hundreds of them are runnable, their synchronous parts run back to back in one
 * phase of the event loop, and /healthz waited hundreds of milliseconds behind them (issue 12). Each execution
 * step awaits `pace()` first. The group-commit writer commits its batches in the pacer's turn of the loop (its
 * batch opens the slice) and resumes their callers through `run()` (a turn's next step, a 202 being written), so a
 * commit and everything it sets going add up to one bounded stretch per loop turn. Inside a fresh slice with
 * nobody waiting `pace()` returns a resolved promise. Otherwise the caller joins a FIFO queue; waiters are released
 * one at a time from microtasks while the slice lasts, and once it is used up the rest wait for setImmediate, which
 * Node runs only after the poll phase has served pending I/O. Releasing one at a time matters: releasing all at
 * once would run every waiter's next chunk in one microtask drain, which is the stall this exists to prevent.
 */
export interface Pacer {
  /** Resolves at once inside the current slice; otherwise in FIFO order, after the next I/O poll if needed. */
  pace(): Promise<void>;
  /**
   * Runs `work` before the `pace()` waiters (FIFO among such work), never synchronously: queue many and they still
   * go one at a time. For resuming callers whose commit is done: finishing started work comes before starting more.
   */
  run(work: () => void): void;
  /**
   * Registers the work that opens each slice (the group-commit writer's batch), given the slice's length as its
   * budget: it runs first in the pacer's turn of the loop, and the waiters get their slice after it, so commit and
   * continuations add up to one bounded stretch. An opener that returns a promise (a batch of async units) holds
   * the slice until it settles: nothing is released while its transaction is open, so no waiter's chunk runs between
   * its units (they would eat its time budget and shrink the batch, issue 12).
   */
  openSlicesWith(first: (budgetMs: number) => void | PromiseLike<void>): void;
  /** Asks for that work on the next turn of the loop (the writer has units queued). */
  wake(): void;
}

const NOW = (): number => performance.now();

/**
 * A slice lasts as long as the rest of the loop ran since the previous slice ended (HTTP, timers), between sliceMs and
 * MAX_SLICE_FACTOR x sliceMs, and the opener (the commit) gets the same budget before it: execution keeps its share
 * of a saturated loop instead of a fixed 4 ms per turn (which cut executions/s when accepts filled the polls, and
 * left the writer behind the units the slice produced), and a turn of the loop stays bounded.
 */
const MAX_SLICE_FACTOR = 2;

export function createPacer(sliceMs = 4, now: () => number = NOW): Pacer {
  let sliceStart = now();
  let slice = sliceMs;
  /** When the pacer last stopped releasing work (its slice ran out, or nothing was left). */
  let gaveBack = sliceStart;
  const waiting: Array<() => void> = [];
  /** `run()` work, released before `waiting`. */
  const first: Array<() => void> = [];
  let scheduled = false;
  /** A release chain is running (microtask to microtask): one chain at a time, or waiters would go several per hop. */
  let releasing = false;
  let opener: ((budgetMs: number) => void | PromiseLike<void>) | null = null;
  let woken = false;
  /** The opener is running: what it queues is released in the slice that follows it. */
  let opening = false;
  const resolved = Promise.resolve();

  function releaseNext(): void {
    releasing = false;
    if ((first.length === 0 && waiting.length === 0) || now() - sliceStart >= slice) {
      gaveBack = now();
      if (first.length > 0 || waiting.length > 0) schedule();
      return;
    }
    releasing = true;
    (first.shift() ?? waiting.shift())!();
    // Runs after the released waiter's continuation (queued first): one chunk of work, then the next waiter.
    queueMicrotask(releaseNext);
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      slice = Math.min(MAX_SLICE_FACTOR * sliceMs, Math.max(sliceMs, now() - gaveBack));
      let opened: void | PromiseLike<void> = undefined;
      if (woken) {
        woken = false;
        opening = true;
        try {
          opened = opener?.(slice);
        } finally {
          if (opened === undefined) opening = false;
        }
      }
      if (opened === undefined) return startSlice();
      // Settles within microtasks on SQLite (its units await no I/O): the slice opens in this same turn of the loop.
      opened.then(sliceAfterOpener, sliceAfterOpener);
    });
  }

  function sliceAfterOpener(): void {
    opening = false;
    startSlice();
  }

  function startSlice(): void {
    sliceStart = now();
    if (!releasing) releaseNext();
  }

  function enqueue(waiter: () => void, queue = waiting): void {
    queue.push(waiter);
    if (releasing || scheduled || opening) return;
    if (now() - sliceStart < slice) {
      releasing = true;
      queueMicrotask(releaseNext);
    } else {
      gaveBack = now();
      schedule();
    }
  }

  return {
    pace() {
      if (first.length === 0 && waiting.length === 0 && now() - sliceStart < slice) return resolved;
      return new Promise<void>((resolve) => enqueue(resolve));
    },
    run: (work) => enqueue(work, first),
    openSlicesWith(work) {
      opener = work;
    },
    wake() {
      woken = true;
      schedule();
    },
  };
}
