// Keep-alive connections for read-only tool calls, one pool per organization, identity and network policy.
/*
 * Dialling a fresh TCP (and TLS) connection per tool call was ~40 % of an execution's CPU (docs/decisions.md "Tool
 * calls over kept-alive connections"). A pooled socket is reused only where reuse cannot change what a call means:
 * - Per organization and per identity: the pool's key holds the organization and a digest of the identity's
 *   material (run-as, token, fields), so a socket an upstream may have bound to one principal (connection-bound
 *   auth) never carries another's call, and no two tenants share a socket.
 * - Per network policy: the guarded lookup runs when a socket is dialled, so a socket dialled under one policy is
 *   never reused under another.
 * - Read-only tools only (the executor decides): a socket the upstream closed while idle fails the request written
 *   on it, and only a call that may be repeated is retried, once, on a fresh connection (http-transport.ts).
 * Idle sockets close after IDLE_MS, or a second before the upstream's own Keep-Alive timeout when it sends one
 * (node:http's agent reads the hint), so reuse rarely meets a closed socket at all.
 */
import { hash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { ToolIdentity } from './http-integration.executor.js';

/** How long a pooled socket may stay idle (Node's own servers close idle keep-alive sockets after 5 s). */
export const IDLE_MS = 4_000;
/** Sockets one pool keeps idle per upstream origin; busier moments dial more and close the surplus. */
const MAX_FREE_SOCKETS = 16;
/** Pools kept at once; the least recently used is closed first. */
const MAX_POOLS = 256;

export interface PoolScope {
  readonly orgId: string;
  readonly identity: ToolIdentity;
  readonly allowPrivateNetworks: boolean;
}

export interface ConnectionPools {
  /** The keep-alive agent for calls of this scope to an origin of this protocol. */
  agentFor(protocol: 'http:' | 'https:', scope: PoolScope): http.Agent;
  /** How many pools are open (metrics, tests). */
  readonly size: number;
  /** Closes every pooled socket; later calls dial afresh. */
  close(): void;
}

/** A digest of the identity's material: the pool key must tell identities apart without holding their secrets. */
function identityDigest(identity: ToolIdentity): string {
  const fields = Object.entries(identity.fields ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return hash('sha256', JSON.stringify([identity.runAs, identity.token ?? null, fields]), 'base64');
}

export function createConnectionPools(options: { maxPools?: number; idleMs?: number } = {}): ConnectionPools {
  const maxPools = options.maxPools ?? MAX_POOLS;
  const idleMs = options.idleMs ?? IDLE_MS;
  const pools = new Map<string, http.Agent>();
  return {
    agentFor(protocol, scope) {
      const key = `${protocol}|${scope.allowPrivateNetworks ? 'private' : 'public'}|${scope.orgId}|${identityDigest(scope.identity)}`;
      const known = pools.get(key);
      if (known !== undefined) {
        // Most recently used last: eviction takes the first key.
        pools.delete(key);
        pools.set(key, known);
        return known;
      }
      if (pools.size >= maxPools) {
        const [oldestKey, oldest] = pools.entries().next().value as [string, http.Agent];
        pools.delete(oldestKey);
        oldest.destroy();
      }
      const agentOptions: http.AgentOptions = { keepAlive: true, maxFreeSockets: MAX_FREE_SOCKETS, timeout: idleMs, scheduling: 'lifo' };
      const agent = protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
      pools.set(key, agent);
      return agent;
    },
    get size() {
      return pools.size;
    },
    close() {
      for (const agent of pools.values()) agent.destroy();
      pools.clear();
    },
  };
}
