// The service under test for the open-session bench: the embedding API on a temp file DB seeded from the demo manifest.
// Announces the demo key and the demo agent (builtin:procedure: one knowledge.search call, then a summary).
// `--accept-only`: each session is written as usual (its row before the 202, its execution and message by the
// materializer after) but never handed to its engine, so a load measures the accept path without the turns competing.
import { parseArgs } from 'node:util';
import { holdDispatch, UNBOUNDED_QUEUE } from '../held-work.js';
import { bootBenchService } from '../service-boot.js';

const { values } = parseArgs({ options: { 'accept-only': { type: 'boolean', default: false } } });
const acceptOnly = values['accept-only'];

await bootBenchService({
  name: 'switchyard-agent',
  manifest: 'examples/demo.workspace.json',
  // Nothing drains the queue when turns are not run: lift the bound so the accept path itself is measured.
  config: acceptOnly ? UNBOUNDED_QUEUE : {},
  prepare(service) {
    if (acceptOnly) holdDispatch(service);
  },
  ready: (service, refs) => ({
    apiKey: refs['demo-key'],
    agentId: refs['demo-agent'],
    facts: { durability: service.services.config.durability, turns: acceptOnly ? 'written, not run (--accept-only)' : 'run in-process' },
  }),
});
