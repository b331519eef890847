// Baseline: a bare node:http hello-world, the ceiling any route on the node:http adapter can approach on this machine.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, exitWithParent } from '../child-lifecycle.js';

const BODY = '{"ok":true}';
// Answers every method and path alike, so a scenario can send its real request to the baseline too.
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(BODY) });
  res.end(BODY);
});

server.listen(0, '127.0.0.1', () => {
  exitWithParent(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  announce({ port: (server.address() as AddressInfo).port, adapter: 'node' });
});
