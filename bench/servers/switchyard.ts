// The service under test: the embedding API on a temp file DB seeded from the demo manifest, on 127.0.0.1.
// Args: [--manifest FILE] [--key-ref REF] (defaults examples/demo.workspace.json, demo-key).
import { parseArgs } from 'node:util';
import { bootBenchService } from '../service-boot.js';

const { values } = parseArgs({
  options: { manifest: { type: 'string', default: 'examples/demo.workspace.json' }, 'key-ref': { type: 'string', default: 'demo-key' } },
});

await bootBenchService({
  name: 'switchyard',
  manifest: values.manifest,
  ready(service, refs) {
    const apiKey = refs[values['key-ref']];
    if (!apiKey) throw new Error(`the manifest produced no ref "${values['key-ref']}" (refs: ${Object.keys(refs).join(', ')})`);
    return { apiKey, facts: { durability: service.services.config.durability } };
  },
});
