// A TCP proxy in front of the service that can cut every open connection (a network drop), noting each Last-Event-ID sent.
import { createServer, connect, type Socket } from 'node:net';

export interface CutProxy {
  url: string;
  /** The Last-Event-ID header values of the stream requests that passed, in order. */
  lastEventIds: string[];
  cut(): void;
  close(): Promise<void>;
}

export async function startCutProxy(target: string): Promise<CutProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const lastEventIds: string[] = [];
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk) => {
      const header = /^last-event-id: *(\S+)\r?$/im.exec(chunk.toString('latin1'));
      if (header && /GET [^ ]+\/stream /.test(chunk.toString('latin1'))) lastEventIds.push(header[1]);
    });
    client.pipe(upstream).on('error', () => undefined);
    upstream.pipe(client).on('error', () => undefined);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    lastEventIds,
    cut: () => sockets.forEach((socket) => socket.destroy()),
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((socket) => socket.destroy());
        server.close(() => resolve());
      }),
  };
}
