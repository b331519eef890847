// The plug-in contract for benchmark scenarios: what a scenario module exports and what the runner hands it.

/** One line of the results table. */
export interface Row {
  scenario: string;
  /** What was measured: a server name from bench/servers/, or e.g. 'in-process' for a micro-bench. */
  target: string;
  /** Requests (or, for a micro-bench, operations) per second. */
  reqPerSec: number;
  p50ms: number;
  p99ms: number;
  /** reqPerSec / the baseline's reqPerSec in the same run; 1 for the baseline itself; null when there is none. */
  ratioToBaseline: number | null;
  /** Client-side errors: socket errors and timeouts, as autocannon counts them. */
  errors: number;
  /** Responses with a status outside 200–299. */
  non2xx: number;
  /** Short remark printed in the table (e.g. that the figure is the client's ceiling). */
  note?: string;
}

/** What a server script in bench/servers/ printed on its first stdout line once listening on 127.0.0.1. */
export interface ServerReady {
  port: number;
  /** Which HTTP adapter serves: uws (the native uWebSockets.js binary; never its JS fallback) or node (node:http). */
  adapter: 'uws' | 'node';
  /** Secret for authenticated scenarios (the switchyard server's demo key); never written to RESULTS.md. */
  apiKey?: string;
  /** Settings worth recording beside the figures (e.g. durability); written to RESULTS.md. */
  facts?: Record<string, string>;
}

/** A server started by the runner in a child process (pinned to its own core when taskset exists). */
export interface RunningServer {
  /** bench/servers/ module name, e.g. 'baseline-uws'. */
  name: string;
  /** http://127.0.0.1:<port> */
  url: string;
  ready: ServerReady;
  /** The server process's id (its CPU time is read from /proc while it is loaded). */
  pid?: number;
}

/** The request autocannon repeats. */
export interface LoadRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query, e.g. '/healthz'. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Status the runner expects from one probe request before loading (default 200): a wrong route fails fast. */
  expectedStatus?: number;
  /** Replace `[<id>]` anywhere in the request (headers, body) with a fresh unique id each time (autocannon's idReplacement). */
  idReplacement?: boolean;
  /**
   * Answers that are the service working as designed under this load (429 OVERLOADED from the execution queue's
   * bound): counted and noted with the rate of expected answers, not reported as unexpected.
   */
  boundedStatuses?: number[];
  /** Note the expected-answer rate of the last 10 s over the first 10 s (does throughput decay as work piles up?). */
  steadiness?: boolean;
}

/** One side of an HTTP comparison: which server to start and what to send it. */
export interface HttpTarget {
  /** bench/servers/<server>.ts; also the target column of the row. */
  server: string;
  /** Built after the server is ready, so it can use `ready.apiKey` or create state over HTTP first. */
  request(server: RunningServer): LoadRequest | Promise<LoadRequest>;
}

/**
 * An HTTP load scenario: the runner starts `target`'s server, loads it, stops it, then does the
 * same for `baseline`, and fills ratioToBaseline. Servers run one at a time on the server core.
 */
export interface HttpScenario {
  kind: 'http';
  name: string;
  target: HttpTarget;
  baseline?: HttpTarget;
  /** Overrides --connections for this scenario. */
  connections?: number;
}

/** Facilities the runner lends a custom scenario. */
export interface BenchContext {
  /** Seconds per measurement (from --duration or --quick). */
  durationSec: number;
  connections: number;
  quick: boolean;
  /** --target values (empty: all): a custom scenario with several targets loads only those it names. */
  targets: readonly string[];
  /**
   * Starts bench/servers/<name>.ts in a pinned child process (on the server core; `both`: on both cores, sharing the
   * client's); the runner stops it after the scenario, even on failure.
   */
  startServer(name: string, args?: string[], options?: ServerPlacement): Promise<RunningServer>;
  stopServer(server: RunningServer): Promise<void>;
  /** Loads a 127.0.0.1 server from the pinned client process and returns its row (ratioToBaseline null). */
  load(scenario: string, server: RunningServer, request: LoadRequest, options?: { connections?: number; warmupSec?: number }): Promise<Row>;
}

export interface ServerPlacement {
  /** `server` (default): the server core alone; `both`: both cores, the client's too (a server with a worker thread). */
  readonly cores?: 'server' | 'both';
}

/**
 * Anything else: SSE fan-out, several servers, or a micro-bench with no HTTP at all
 * (`run: async () => rows` ignores the context). Rows are printed in the order returned.
 */
export interface CustomScenario {
  kind: 'custom';
  name: string;
  run(ctx: BenchContext): Promise<Row[]>;
}

export type Scenario = HttpScenario | CustomScenario;
