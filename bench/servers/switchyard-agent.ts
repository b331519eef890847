// The service under test for the open-session bench: the embedding API on a temp file DB seeded from the demo manifest.
// Announces the demo key and the demo agent (builtin:procedure: one knowledge.search call, then a summary).
import { bootBenchService } from '../service-boot.js';

await bootBenchService({
  name: 'switchyard-agent',
  manifest: 'examples/demo.workspace.json',
  ready: (service, refs) => ({ apiKey: refs['demo-key'], agentId: refs['demo-agent'], facts: { durability: service.services.config.durability } }),
});
