// The service under test for the fire bench: the embedding API on a temp file DB seeded from examples/workspace.json.
// Announces bob's key and the `new-lead` API trigger (subscribers: the lookup agent on builtin:procedure, the enrich flow).
// `--execution thread`: turns and flow runs in the execution worker thread (SWITCHYARD_EXECUTION=thread), as the
// sustained scenario's second target; `--execution-nice N` sets that thread's nice value (SWITCHYARD_EXECUTION_NICE).
// `--accept-only`: sessions are written as usual (the run row before the 202, the sessions by the materializer after)
// but never handed to their engines, so a load measures the accept path without the sessions' execution competing.
// `--unbounded`: the execution queue's bound is lifted (no 429s) while turns still run: with `--execution thread` the
// HTTP thread's accept capacity while the worker writes and runs what it accepted (falling behind, for a short load).
import { parseArgs } from 'node:util';
import { seedFireHistory } from '../history-seed.js';
import { holdDispatch, UNBOUNDED_QUEUE } from '../held-work.js';
import { bootBenchService } from '../service-boot.js';

const { values } = parseArgs({
  options: {
    'accept-only': { type: 'boolean', default: false },
    unbounded: { type: 'boolean', default: false },
    history: { type: 'string', default: '0' },
    execution: { type: 'string', default: 'inline' },
    'execution-nice': { type: 'string', default: '10' },
  },
});
if (values.execution !== 'inline' && values.execution !== 'thread') throw new Error('--execution must be inline or thread');
// The worker dispatches what it writes: holding main's dispatcher would not keep sessions from running there.
if (values.execution === 'thread' && values['accept-only']) throw new Error('--accept-only holds the inline dispatcher; with --execution thread use --unbounded');
const execution = values.execution;
const history = Number(values.history);

await bootBenchService({
  name: 'switchyard-fire',
  manifest: 'examples/workspace.json',
  // Nothing drains the queue when sessions are not run: lift the bound so the accept path itself is measured.
  config: { execution, executionNice: Number(values['execution-nice']), ...(values['accept-only'] || values.unbounded ? UNBOUNDED_QUEUE : {}) },
  prepare(service) {
    if (values['accept-only']) holdDispatch(service);
  },
  // The history is seeded, then the server restarts over the file (bench/service-boot.ts) before the load.
  ...(history > 0
    ? {
        seed(service, refs) {
          const seeded = seedFireHistory(service, refs, history);
          return { history: `${history} keyed fires seeded (${seeded.rows} rows, ${seeded.seconds.toFixed(0)} s), then the server restarted over the file` };
        },
      }
    : {}),
  ready(service, refs) {
    return {
      apiKey: refs['bob-key'],
      triggerId: refs['new-lead'],
      facts: {
        durability: service.services.config.durability,
        sessions: values['accept-only'] ? 'committed, not run (--accept-only)' : `${execution === 'thread' ? `written and run in the execution worker thread (nice ${values['execution-nice']})` : 'run in-process'}${values.unbounded ? ', queue bound lifted' : ''}`,
      },
    };
  },
});
