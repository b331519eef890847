// The documented tracing setup: `node --import examples/otel-setup.mjs` exports the CLI's spans over OTLP/HTTP.
import t from 'tap';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const TRACE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

t.test('spans of a started service reach an OTLP collector with the service name and the caller trace', async (t) => {
  // A loopback collector speaking OTLP/HTTP JSON (what the exporter sends by default).
  const exports: any[] = [];
  const collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') exports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  t.teardown(() => collector.close());
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;

  const db = join(mkdtempSync(join(tmpdir(), 'sy-otel-')), 'otel.db');
  const args = ['--import', 'tsx', '--import', join(root, 'examples/otel-setup.mjs'), join(root, 'bin/switchyard.ts'), 'start', '--db', db, '--host', '127.0.0.1', '--port', '0', '--manifest', join(root, 'examples/workspace.json')];
  const env = { ...process.env, SWITCHYARD_LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'switchyard-otel-test', OTEL_BSP_SCHEDULE_DELAY: '100' };
  const child = spawn(process.execPath, args, { cwd: root, env });
  t.teardown(() => child.kill('SIGKILL'));
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));

  const port = await until(() => /"msg":"listening"/.test(output) && Number(/"port":(\d+)[^\n]*"msg":"listening"/.exec(output)?.[1]), 60_000);
  t.ok(port, `listening (${output.slice(0, 200)})`);
  const health = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { traceparent: `00-${TRACE}-1111111111111111-01` } });
  t.equal(health.status, 200);

  const span = await until(() => spansOf(exports).find((s) => s.name === 'GET /healthz'), 30_000);
  t.ok(span, 'the request span was exported');
  t.equal(span.traceId, TRACE, 'in the caller trace');
  t.equal(span.parentSpanId, '1111111111111111');
  const resource = exports.flatMap((e) => e.resourceSpans.map((r: any) => r.resource.attributes)).flat();
  t.ok(resource.some((a: any) => a.key === 'service.name' && a.value.stringValue === 'switchyard-otel-test'), 'OTEL_SERVICE_NAME names the service');

  child.kill('SIGTERM');
  t.equal(await exited, 0, 'stops cleanly with the SDK loaded');
});

function spansOf(exports: any[]): any[] {
  return exports.flatMap((e) => e.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans)));
}

/** Polls a condition of another process (bounded); no injected clock reaches across the process boundary. */
async function until<T>(probe: () => T | false | undefined, limitMs: number): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
