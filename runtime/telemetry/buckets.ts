// Histogram buckets shared by the service's metrics (seconds), so dashboards can compare them.

/** HTTP handling: sub-millisecond accepts up to long MCP tools/call waits (60 s). */
export const HTTP_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Turns, model steps, tool calls and webhook attempts: network-bound work from milliseconds to minutes. */
export const WORK_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** One group-commit transaction (fsync included). */
export const COMMIT_SECONDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** Units of work per group-commit batch (the writer caps a batch at 2000). */
export const BATCH_UNITS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2000];
