// `npm run bench:pg`: the PostgreSQL scenarios (issue 16); they own the "PostgreSQL" section of bench/RESULTS.md.
import { runBench } from './runner.js';
import { pgFireScenario } from './pg-fire.bench.js';
import { pgSseScenario } from './pg-sse.bench.js';

const INTRO = `Written by \`npm run bench:pg\` (bench/run-pg.ts, same options as \`npm run bench\`); \`npm run bench\` keeps this
section when it rewrites the rest. Needs PostgreSQL's server binaries (Debian \`postgresql\`): each scenario starts a
throwaway cluster on 127.0.0.1 with fsync on, as a real server runs. Targets are the real \`switchyard start --demo\`
(\`bench/cli-service.ts\`), serving processes pinned to the server core, clients to the other; PostgreSQL floats.

- pg-fire (\`bench/pg-fire.bench.ts\`): keyed fires (fresh Idempotency-Key each) on SQLite (one process) and on PostgreSQL
  with 1, 2 and 3 worker processes, then a bare uWS hello-world; "× baseline" is over that hello-world.
- pg-sse (\`bench/pg-sse.bench.ts\`): how many session streams \`--workers 3\` holds, and the time from posting one
  message to the last stream receiving it (p50 / worst round); the row's req/s is streams reached per second.`;

try {
  process.exitCode = await runBench([pgFireScenario, pgSseScenario], process.argv.slice(2), { title: 'PostgreSQL', intro: INTRO, script: 'bench:pg' });
} catch (error) {
  process.stderr.write(`bench:pg: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
}
