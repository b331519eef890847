// Measurement prototype, not service code: probes GET /healthz every 20 ms over one keep-alive connection and keeps each latency.
import http from 'node:http';

export interface Probe {
  /** Starts keeping latencies (probes before this only warm the connection). */
  record(): void;
  /** Stops probing; returns the kept latencies in ms. */
  stop(): Promise<number[]>;
}

const INTERVAL_MS = 20;

export function startHealthzProbe(baseUrl: string): Probe {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let recording = false;
  let running = true;
  const get = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const request = http.get(`${baseUrl}/healthz`, { agent }, (response) => {
        response.resume();
        response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`/healthz answered ${response.statusCode}`))));
      });
      request.on('error', reject);
    });
  // One probe at a time, started every 20 ms: a slow answer delays the next one instead of piling them up.
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await get();
      const elapsed = performance.now() - started;
      if (recording) latencies.push(elapsed);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, INTERVAL_MS - elapsed)));
    }
  })();
  return {
    record: () => void (recording = true),
    async stop() {
      running = false;
      await loop;
      agent.destroy();
      return latencies;
    },
  };
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
