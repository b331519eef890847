// The service under test: the embedding API on a temp file DB seeded from the demo manifest, on 127.0.0.1.
// Args: [--manifest FILE] [--key-ref REF] [--adapter auto|uws|node] (defaults examples/demo.workspace.json, demo-key, auto).
import { bootDemoBenchService } from '../service-boot.js';

await bootDemoBenchService('switchyard', process.argv.slice(2));
