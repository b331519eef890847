// Baseline: a bare uWebSockets.js hello-world, the ceiling any uWS-based route can approach on this machine.
import type UWS from 'uWebSockets.js';
import { announce, exitWithParent, requireNativeUws } from '../child-lifecycle.js';

const uWS = requireNativeUws('baseline-uws');

const app = uWS.App();
// Answers every method and path alike, so a scenario can send its real request to the baseline too.
app.any('/*', (res) => {
  res.cork(() => {
    res.writeHeader('content-type', 'application/json; charset=utf-8');
    res.end('{"ok":true}');
  });
});

app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) {
    process.stderr.write('baseline-uws: could not listen on 127.0.0.1\n');
    process.exit(1);
  }
  exitWithParent(() => uWS.us_listen_socket_close(socket));
  announce({ port: uWS.us_socket_local_port(socket as unknown as UWS.us_socket), adapter: 'uws' });
});
