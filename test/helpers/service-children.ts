// Service child processes for an e2e test: the loopback crm upstream, the child pool, and an API client as ada.
/*
 * What test/e2e/postgres-service, multi-node and deadlines-restart each set up the same way: children run
 * test/e2e/crash.child.ts (crash-harness.ts) on the conversation workspace, whose crm upstream is a recording
 * loopback server here. Every child booted is stopped at teardown (a SIGKILLed one is already gone).
 */
import { Agent } from 'node:http';
import type { Test } from 'tap';
import { createChildPool, send, type BootOrder, type ChildPool, type LiveChild, type Reply } from './crash-harness.js';
import { useSharedMasterKeys } from './shared-master-keys.js';
import { startRecordingUpstream } from '../runtime/tools/recording-upstream.js';
import { conversationWorkspace, crmResponder } from '../http/sessions/conversation-fixture.js';

type RecordingUpstream = Awaited<ReturnType<typeof startRecordingUpstream>>;

export interface ServiceChildren {
  /** The crm upstream every child calls (answers as crmResponder, records each request). */
  readonly upstream: RecordingUpstream;
  readonly pool: ChildPool;
  /** The conversation workspace pointed at the upstream: what a first boot applies. */
  workspace(): any;
  /**
   * Boots a child (ChildPool.boot) and keeps it to stop at teardown; the refs of a boot that applied a manifest
   * become the ones `api` authenticates with.
   */
  boot(order: () => BootOrder, options?: { last?: boolean }): Promise<LiveChild>;
  /** The workspace refs (keys, agents, triggers) the manifest boot answered. */
  readonly refs: Record<string, string>;
  /** `method /api/v1{path}` on `node` as ada (her API key), over the shared HTTP agent. */
  api(node: LiveChild, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
}

/**
 * Starts the upstream and a child pool for `t`. `sharedMasterKeys`: the children get one set of master keys (needed
 * when several share a database, and so no child writes a key file into the repository root).
 */
export async function useServiceChildren(t: Test, options: { sharedMasterKeys?: boolean; agent?: Agent } = {}): Promise<ServiceChildren> {
  if (options.sharedMasterKeys) useSharedMasterKeys(t);
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  upstream.respond(crmResponder);
  const pool = createChildPool();
  const booted: LiveChild[] = [];
  t.teardown(async () => {
    await Promise.all(booted.map((child) => child.stop()));
    await pool.close();
  });
  const agent = options.agent ?? new Agent({ keepAlive: false });
  t.teardown(() => agent.destroy());
  let refs: Record<string, string> = {};
  return {
    upstream,
    pool,
    workspace: () => conversationWorkspace(upstream.baseUrl),
    get refs() {
      return refs;
    },
    async boot(order, bootOptions) {
      const child = await pool.boot(order, bootOptions);
      booted.push(child);
      if (child.order.manifest !== undefined) refs = child.refs;
      return child;
    },
    api: (node, method, path, body, headers = {}) =>
      send(agent, node.port, method, `/api/v1${path}`, { authorization: `Bearer ${refs['ada-key']}`, ...headers }, body),
  };
}
