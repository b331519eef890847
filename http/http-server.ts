// Picks the HTTP adapter (uWebSockets.js where its native binary loads, else node:http) behind one server interface.
import type { AdapterName } from './adapter-shared.js';
import type { Kernel } from './kernel.js';
import { createNodeServer } from './node-server.js';
import { createUwsServer } from './uws-server.js';
import { loadNativeUws, type Uws } from './uws-native.js';

export type HttpAdapterSetting = AdapterName | 'auto';

export interface HttpServerOptions {
  kernel: Kernel;
  /** Trust `X-Forwarded-For` / `X-Forwarded-Proto` from a reverse proxy. */
  trustProxy: boolean;
  /** Bytes a slow SSE client may have queued before it is closed (it reconnects with Last-Event-ID). */
  streamQueueLimit: number;
}

export interface HttpServer {
  readonly adapter: AdapterName;
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting and ends open streams; requests in flight still get their answers. */
  close(): void;
  /** After in-flight work is answered: drops the connections that remain (idle keep-alives). */
  terminate(): Promise<void>;
  readonly openStreams: number;
}

export interface AdapterChoice {
  adapter: AdapterName;
  /** Why this adapter: shown in the start-up log line. */
  reason: string;
  /** The loaded native module when the adapter is uws. */
  uws?: Uws;
}

/**
 * `auto` takes uWS when its native binary loads (Node 20 here) and node:http otherwise (Node 22/24);
 * an explicit `uws` that cannot load is a start-up error, never a silent downgrade.
 */
export function chooseAdapter(setting: HttpAdapterSetting, env: Record<string, string | undefined> = process.env): AdapterChoice {
  if (setting === 'node') return { adapter: 'node', reason: 'SWITCHYARD_HTTP_ADAPTER=node' };
  const load = loadNativeUws(env);
  if (load.ok) return { adapter: 'uws', uws: load.uws, reason: setting === 'uws' ? 'SWITCHYARD_HTTP_ADAPTER=uws' : 'native uWebSockets.js binary loaded' };
  if (setting === 'uws') throw new Error(`SWITCHYARD_HTTP_ADAPTER=uws but uWebSockets.js cannot load: ${load.reason}. Use "node" or "auto".`);
  return { adapter: 'node', reason: load.reason };
}

export function createHttpServer(choice: AdapterChoice, options: HttpServerOptions): HttpServer {
  if (choice.adapter === 'node' || !choice.uws) return createNodeServer(options);
  return createUwsServer(choice.uws, options);
}
