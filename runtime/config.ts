// Service configuration: defaults, then environment variables (documented in README "Configuration").
import { z } from 'zod';
import type { RateLimitConfig } from './rate-limit.js';

export interface ServiceConfig {
  host: string;
  port: number;
  /** SQLite file path or ':memory:'. */
  dbPath: string;
  durability: 'full' | 'normal';
  /**
   * Where turns, flow runs, materialization and timers run: `inline` on the HTTP event loop (default), or `thread`
   * in one worker thread with its own connection to the same SQLite file (docs/decisions.md "Execution in a worker
   * thread"). `thread` needs a file database on SQLite and the system clock; createService refuses it otherwise.
   */
  execution: 'inline' | 'thread';
  /**
   * The execution thread's nice value (0–19) with `execution: 'thread'`: above 0 the kernel gives the HTTP loop the
   * core first when both want it, so health checks, reads and accepts stay fast while turns use the rest.
   */
  executionNice: number;
  /** postgres:// URL: when set, the service runs on PostgreSQL and dbPath/durability are unused. */
  databaseUrl: string | null;
  /** PostgreSQL connections this node's pool holds at most (at least 2: reads must not wait behind every writer batch). */
  pgPoolSize: number;
  /** Server-side limit per statement; a runaway query ends with an error instead of holding a connection. */
  pgStatementTimeoutMs: number;
  /** Shown in pg_stat_activity; null means `switchyard-<hostname>-<pid>`, so each node's connections stand apart. */
  pgApplicationName: string | null;
  /**
   * How long a node's claim on a running session lasts unrenewed (renewed every third of it): a dead node's turns
   * resume elsewhere after about this long. Keep it well above the nodes' clock skew and longest event-loop stall.
   */
  pgSessionLeaseMs: number;
  logLevel: string;
  bodyLimitBytes: number;
  /** Deepest nesting of arrays/objects a JSON body may have (400 VALIDATION past it): deep values overflow the stack. */
  jsonMaxDepth: number;
  keyRateLimit: RateLimitConfig;
  ipRateLimit: RateLimitConfig;
  trustProxy: boolean;
  /** Bytes a slow SSE consumer may have queued before it is disconnected. */
  streamQueueLimitBytes: number;
  sseHeartbeatMs: number;
  consoleSessionTtlMs: number;
  /** Public base URL used in links we hand out (activation links, demo curl). */
  publicUrl: string | null;
  /** Per-turn budgets (model steps, model tokens in + out, running wall time); past one the turn ends with budget.failed. */
  turnMaxSteps: number;
  turnMaxTokens: number;
  turnMaxWallMs: number;
  /** How long a turn approval may wait undecided; the turn then fails APPROVAL_EXPIRED (issue 13). */
  approvalTtlMs: number;
  /** Lets the built-in `http` tool reach private and loopback addresses (off by default: SSRF guard). */
  httpToolAllowPrivateNetworks: boolean;
  /** Lets outbound webhook endpoints be private or loopback addresses, at registration and delivery (off by default). */
  webhooksAllowPrivateNetworks: boolean;
  /** HTTP adapter: uWebSockets.js, node:http, or auto (uWS where its native binary loads, else node:http). */
  httpAdapter: 'auto' | 'uws' | 'node';
  /** MCP endpoint: browser origins allowed to call it (DNS-rebinding guard); requests without Origin are always allowed. */
  mcpAllowedOrigins: string[];
  /** MCP sessions unused this long are forgotten (the client re-initializes on the 404). */
  mcpSessionIdleMs: number;
  /** MCP sessions held in memory in all, and per credential; the least recently used goes first. */
  mcpMaxSessions: number;
  mcpMaxSessionsPerKey: number;
  /** How long a tools/call waits for its turn before answering "still running" (the turn continues). */
  mcpCallWaitMs: number;
  /** Tools per tools/list page. */
  mcpToolsPageSize: number;
  /** Seconds of work the execution queue may hold before run entry points answer 429 OVERLOADED. */
  queueLimitSeconds: number;
  /** Queued executions at most, whatever the measured rate (a memory bound). */
  queueMaxExecutions: number;
  /** Executions per second assumed until the drain rate is measured. */
  queueInitialRate: number;
}

export const DEFAULT_CONFIG: ServiceConfig = {
  host: '127.0.0.1',
  port: 8080,
  dbPath: 'switchyard.db',
  durability: 'full',
  execution: 'inline',
  executionNice: 10,
  databaseUrl: null,
  pgPoolSize: 10,
  pgStatementTimeoutMs: 30_000,
  pgApplicationName: null,
  pgSessionLeaseMs: 15_000,
  logLevel: 'info',
  bodyLimitBytes: 1024 * 1024,
  jsonMaxDepth: 64,
  keyRateLimit: { ratePerSecond: 200, burst: 400 },
  ipRateLimit: { ratePerSecond: 1000, burst: 2000 },
  trustProxy: false,
  streamQueueLimitBytes: 1024 * 1024,
  sseHeartbeatMs: 25_000,
  consoleSessionTtlMs: 12 * 3_600_000,
  publicUrl: null,
  turnMaxSteps: 24,
  turnMaxTokens: 200_000,
  turnMaxWallMs: 10 * 60_000,
  approvalTtlMs: 24 * 3_600_000,
  httpToolAllowPrivateNetworks: false,
  webhooksAllowPrivateNetworks: false,
  httpAdapter: 'auto',
  mcpAllowedOrigins: [],
  mcpSessionIdleMs: 3_600_000,
  mcpMaxSessions: 10_000,
  mcpMaxSessionsPerKey: 100,
  // Below the MCP TypeScript SDK's default 60 s request timeout, so its clients get an answer, not a timeout.
  mcpCallWaitMs: 55_000,
  mcpToolsPageSize: 50,
  queueLimitSeconds: 10,
  queueMaxExecutions: 50_000,
  queueInitialRate: 500,
};

function intFrom(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative integer`);
  return parsed;
}

/** Comma-separated values, trimmed, empties dropped. */
function listFrom(value: string | undefined, fallback: string[]): string[] {
  if (value === undefined) return fallback;
  return value.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

function rateFrom(value: string | undefined, name: string, fallback: RateLimitConfig): RateLimitConfig {
  if (value === undefined || value === '') return fallback;
  // "<per second>[/<burst>]"; 0 disables the limit.
  const [rate, burst] = value.split('/');
  const ratePerSecond = intFrom(rate, name, fallback.ratePerSecond);
  return { ratePerSecond, burst: intFrom(burst, name, Math.max(1, ratePerSecond * 2)) };
}

/**
 * Why `execution: 'thread'` cannot run on this configuration, or null: the worker opens a second connection to the
 * same SQLite file, which neither PostgreSQL nor an in-memory database offers.
 */
export function threadExecutionMisfit(config: Pick<ServiceConfig, 'execution' | 'databaseUrl' | 'dbPath'>): string | null {
  if (config.execution !== 'thread') return null;
  if (config.databaseUrl !== null) return 'it is for SQLite; on PostgreSQL run several processes instead (switchyard start --workers N).';
  if (config.dbPath === ':memory:' || config.dbPath === '') return 'an in-memory database cannot be shared with another thread; give a file (--db FILE).';
  return null;
}

/** Parsed, never echoed: zod's messages name the rule broken, not the value (the URL may carry a password). */
const postgresUrl = z.string().superRefine((value, ctx) => {
  // URL.canParse, not zod's url(): a socket URL (postgres:///db?host=/run/postgresql) has no host part.
  const url = URL.canParse(value) ? new URL(value) : null;
  const problem =
    url === null ? 'not a URL'
    : !/^postgres(ql)?:$/.test(url.protocol) ? 'must start with postgres:// or postgresql://'
    : url.pathname.length <= 1 ? 'must name a database (postgres://host/<database>)'
    : null;
  if (problem !== null) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
});

/** The URL, or a config error that says what is wrong with it without repeating it. */
export function databaseUrlFrom(value: string | undefined | null, name = 'SWITCHYARD_DATABASE_URL'): string | null {
  if (value === undefined || value === null || value === '') return null;
  const parsed = postgresUrl.safeParse(value);
  if (!parsed.success) throw new Error(`${name} is not a valid PostgreSQL URL: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env, base: ServiceConfig = DEFAULT_CONFIG): ServiceConfig {
  const durability = env.SWITCHYARD_DURABILITY ?? base.durability;
  if (durability !== 'full' && durability !== 'normal') throw new Error('SWITCHYARD_DURABILITY must be "full" or "normal"');
  const execution = env.SWITCHYARD_EXECUTION || base.execution;
  if (execution !== 'inline' && execution !== 'thread') throw new Error('SWITCHYARD_EXECUTION must be "inline" or "thread"');
  const httpAdapter = env.SWITCHYARD_HTTP_ADAPTER || base.httpAdapter;
  if (httpAdapter !== 'auto' && httpAdapter !== 'uws' && httpAdapter !== 'node') throw new Error('SWITCHYARD_HTTP_ADAPTER must be "auto", "uws" or "node"');
  return {
    host: env.SWITCHYARD_HOST || base.host,
    port: intFrom(env.SWITCHYARD_PORT ?? env.PORT, 'SWITCHYARD_PORT', base.port),
    dbPath: env.SWITCHYARD_DB || base.dbPath,
    durability,
    execution,
    executionNice: Math.min(19, intFrom(env.SWITCHYARD_EXECUTION_NICE, 'SWITCHYARD_EXECUTION_NICE', base.executionNice)),
    databaseUrl: env.SWITCHYARD_DATABASE_URL === undefined ? base.databaseUrl : databaseUrlFrom(env.SWITCHYARD_DATABASE_URL),
    pgPoolSize: Math.max(2, intFrom(env.SWITCHYARD_PG_POOL_SIZE, 'SWITCHYARD_PG_POOL_SIZE', base.pgPoolSize)),
    pgStatementTimeoutMs: intFrom(env.SWITCHYARD_PG_STATEMENT_TIMEOUT_MS, 'SWITCHYARD_PG_STATEMENT_TIMEOUT_MS', base.pgStatementTimeoutMs),
    pgApplicationName: env.SWITCHYARD_PG_APPLICATION_NAME || base.pgApplicationName,
    // Below a second a busy event loop could miss its own renewals and hand its sessions over while alive.
    pgSessionLeaseMs: Math.max(1_000, intFrom(env.SWITCHYARD_PG_SESSION_LEASE_MS, 'SWITCHYARD_PG_SESSION_LEASE_MS', base.pgSessionLeaseMs)),
    logLevel: env.SWITCHYARD_LOG_LEVEL || base.logLevel,
    bodyLimitBytes: intFrom(env.SWITCHYARD_BODY_LIMIT_BYTES, 'SWITCHYARD_BODY_LIMIT_BYTES', base.bodyLimitBytes),
    jsonMaxDepth: Math.max(1, intFrom(env.SWITCHYARD_JSON_MAX_DEPTH, 'SWITCHYARD_JSON_MAX_DEPTH', base.jsonMaxDepth)),
    keyRateLimit: rateFrom(env.SWITCHYARD_RATE_LIMIT_KEY, 'SWITCHYARD_RATE_LIMIT_KEY', base.keyRateLimit),
    ipRateLimit: rateFrom(env.SWITCHYARD_RATE_LIMIT_IP, 'SWITCHYARD_RATE_LIMIT_IP', base.ipRateLimit),
    trustProxy: /^(1|true|yes)$/i.test(env.SWITCHYARD_TRUST_PROXY ?? String(base.trustProxy)),
    streamQueueLimitBytes: intFrom(env.SWITCHYARD_STREAM_QUEUE_BYTES, 'SWITCHYARD_STREAM_QUEUE_BYTES', base.streamQueueLimitBytes),
    sseHeartbeatMs: intFrom(env.SWITCHYARD_SSE_HEARTBEAT_MS, 'SWITCHYARD_SSE_HEARTBEAT_MS', base.sseHeartbeatMs),
    consoleSessionTtlMs: base.consoleSessionTtlMs,
    publicUrl: env.SWITCHYARD_PUBLIC_URL || base.publicUrl,
    turnMaxSteps: intFrom(env.SWITCHYARD_TURN_MAX_STEPS, 'SWITCHYARD_TURN_MAX_STEPS', base.turnMaxSteps),
    turnMaxTokens: intFrom(env.SWITCHYARD_TURN_MAX_TOKENS, 'SWITCHYARD_TURN_MAX_TOKENS', base.turnMaxTokens),
    turnMaxWallMs: intFrom(env.SWITCHYARD_TURN_MAX_WALL_MS, 'SWITCHYARD_TURN_MAX_WALL_MS', base.turnMaxWallMs),
    approvalTtlMs: intFrom(env.SWITCHYARD_APPROVAL_TTL_MS, 'SWITCHYARD_APPROVAL_TTL_MS', base.approvalTtlMs),
    httpToolAllowPrivateNetworks: /^(1|true|yes)$/i.test(env.SWITCHYARD_HTTP_TOOL_ALLOW_PRIVATE ?? String(base.httpToolAllowPrivateNetworks)),
    webhooksAllowPrivateNetworks: /^(1|true|yes)$/i.test(env.SWITCHYARD_WEBHOOKS_ALLOW_PRIVATE ?? String(base.webhooksAllowPrivateNetworks)),
    httpAdapter,
    mcpAllowedOrigins: listFrom(env.SWITCHYARD_MCP_ALLOWED_ORIGINS, base.mcpAllowedOrigins),
    mcpSessionIdleMs: intFrom(env.SWITCHYARD_MCP_SESSION_IDLE_MS, 'SWITCHYARD_MCP_SESSION_IDLE_MS', base.mcpSessionIdleMs),
    mcpMaxSessions: intFrom(env.SWITCHYARD_MCP_MAX_SESSIONS, 'SWITCHYARD_MCP_MAX_SESSIONS', base.mcpMaxSessions),
    mcpMaxSessionsPerKey: intFrom(env.SWITCHYARD_MCP_MAX_SESSIONS_PER_KEY, 'SWITCHYARD_MCP_MAX_SESSIONS_PER_KEY', base.mcpMaxSessionsPerKey),
    mcpCallWaitMs: intFrom(env.SWITCHYARD_MCP_CALL_WAIT_MS, 'SWITCHYARD_MCP_CALL_WAIT_MS', base.mcpCallWaitMs),
    mcpToolsPageSize: Math.max(1, intFrom(env.SWITCHYARD_MCP_TOOLS_PAGE_SIZE, 'SWITCHYARD_MCP_TOOLS_PAGE_SIZE', base.mcpToolsPageSize)),
    queueLimitSeconds: intFrom(env.SWITCHYARD_QUEUE_LIMIT_SECONDS, 'SWITCHYARD_QUEUE_LIMIT_SECONDS', base.queueLimitSeconds),
    queueMaxExecutions: intFrom(env.SWITCHYARD_QUEUE_MAX_EXECUTIONS, 'SWITCHYARD_QUEUE_MAX_EXECUTIONS', base.queueMaxExecutions),
    queueInitialRate: Math.max(1, intFrom(env.SWITCHYARD_QUEUE_INITIAL_RATE, 'SWITCHYARD_QUEUE_INITIAL_RATE', base.queueInitialRate)),
  };
}
