// Measurement prototype, not service code: the synchronous CPU of one execution (JSON and compute like a turn), calibrated to a target in µs.
import { createHash } from 'node:crypto';

const TRANSCRIPT = {
  system: 'You look up contacts for the sales team and answer with what you found.',
  messages: Array.from({ length: 6 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `Message ${i}: lead c-${i} from Acme, enrich it.`, tokens: 40 + i })),
  tools: Array.from({ length: 4 }, (_, i) => ({ name: `tool_${i}`, schema: { type: 'object', properties: { id: { type: 'string' }, limit: { type: 'integer' } } } })),
};

/** One chunk: serialize a prompt, parse a reply, hash it — the shape of snapshot, prompt and validation work in a turn. */
function chunk(seed: number): number {
  const text = JSON.stringify({ ...TRANSCRIPT, seed });
  const parsed = JSON.parse(text) as typeof TRANSCRIPT & { seed: number };
  const digest = createHash('sha256').update(text).digest();
  return parsed.messages.length + digest[0]! + parsed.seed;
}

/** Runs `chunks` chunks; the result is returned so the work cannot be optimized away. */
export function turnWork(chunks: number): number {
  let sink = 0;
  for (let i = 0; i < chunks; i += 1) sink += chunk(i);
  return sink;
}

/**
 * Chunks per execution so that one execution costs about `targetUs` of CPU on this core. The fastest of several
 * rounds is taken: other work on a shared core only ever makes a round slower, and would under-size the turn.
 */
export function calibrate(targetUs: number): { chunks: number; usPerChunk: number } {
  turnWork(2000);
  const rounds = 500;
  let usPerChunk = Infinity;
  for (let i = 0; i < 8; i += 1) {
    const started = performance.now();
    turnWork(rounds);
    usPerChunk = Math.min(usPerChunk, ((performance.now() - started) * 1000) / rounds);
  }
  return { chunks: Math.max(4, Math.round(targetUs / usPerChunk)), usPerChunk };
}
