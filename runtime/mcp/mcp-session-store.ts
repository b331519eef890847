// MCP protocol sessions (Mcp-Session-Id): issued at initialize, bound to one credential, forgotten when idle or ended.
/*
 * Held in memory on purpose (docs/decisions.md "MCP sessions are not durable"): an MCP session carries only the
 * negotiated protocol version; the work it starts lives in durable agent sessions. After a restart the client gets
 * 404 and, as the MCP transport requires, initializes again. Map insertion order is recency order: `touch`
 * re-inserts, so the first entries are always the least recently used and eviction/expiry scan from the front.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';

export interface McpSession {
  readonly id: string;
  /** The credential that initialized it: requests with another key see the uniform 404. */
  readonly credentialId: string;
  readonly userId: string;
  readonly orgId: string;
  readonly protocolVersion: string;
  lastUsedAt: number;
  /** tools/call requests still waiting, by JSON-RPC id, so notifications/cancelled can stop the wait. */
  readonly inFlight: Map<string, AbortController>;
}

export interface McpSessionStoreOptions {
  clock: Clock;
  idleMs: number;
  maxSessions: number;
  maxPerCredential: number;
}

export interface McpSessionOwner {
  credentialId: string;
  userId: string;
  orgId: string;
}

export interface McpSessionStore {
  create(owner: McpSessionOwner, protocolVersion: string): McpSession;
  /** The live session for this id and credential, marked used; undefined when unknown, ended, expired or not the caller's. */
  use(id: string, credentialId: string): McpSession | undefined;
  /** Ends a session: later requests with its id get 404; waits in progress stop. */
  end(session: McpSession): void;
  readonly size: number;
}

/** 32 bytes from the CSPRNG, base64url: visible ASCII only, as the transport requires of a session id. */
export function newMcpSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export function createMcpSessionStore(options: McpSessionStoreOptions): McpSessionStore {
  const { clock } = options;
  const sessions = new Map<string, McpSession>();
  const perCredential = new Map<string, number>();

  function drop(session: McpSession): void {
    if (!sessions.delete(session.id)) return;
    const left = (perCredential.get(session.credentialId) ?? 1) - 1;
    if (left <= 0) perCredential.delete(session.credentialId);
    else perCredential.set(session.credentialId, left);
    for (const wait of session.inFlight.values()) wait.abort();
    session.inFlight.clear();
  }

  const expired = (session: McpSession, now: number): boolean => now - session.lastUsedAt >= options.idleMs;

  function sweep(now: number): void {
    for (const session of sessions.values()) {
      if (!expired(session, now)) break;
      drop(session);
    }
  }

  function oldestOf(credentialId: string): McpSession | undefined {
    for (const session of sessions.values()) if (session.credentialId === credentialId) return session;
    return undefined;
  }

  return {
    get size() {
      return sessions.size;
    },
    create(owner, protocolVersion) {
      const now = clock.now();
      sweep(now);
      // One key cannot crowd out everyone else's sessions: its own least recently used one goes first.
      if ((perCredential.get(owner.credentialId) ?? 0) >= options.maxPerCredential) {
        const oldest = oldestOf(owner.credentialId);
        if (oldest) drop(oldest);
      }
      while (sessions.size >= options.maxSessions) {
        const first = sessions.values().next().value;
        if (first === undefined) break;
        drop(first);
      }
      const session: McpSession = {
        id: newMcpSessionId(),
        credentialId: owner.credentialId,
        userId: owner.userId,
        orgId: owner.orgId,
        protocolVersion,
        lastUsedAt: now,
        inFlight: new Map(),
      };
      sessions.set(session.id, session);
      perCredential.set(owner.credentialId, (perCredential.get(owner.credentialId) ?? 0) + 1);
      return session;
    },
    use(id, credentialId) {
      const session = sessions.get(id);
      if (session === undefined) return undefined;
      const now = clock.now();
      if (expired(session, now)) {
        drop(session);
        return undefined;
      }
      if (session.credentialId !== credentialId) return undefined;
      session.lastUsedAt = now;
      sessions.delete(id);
      sessions.set(id, session);
      return session;
    },
    end: drop,
  };
}
