// The service under test on the node:http adapter, for the rows beside uWS (same boot as switchyard.ts).
import { bootDemoBenchService } from '../service-boot.js';

await bootDemoBenchService('switchyard-node', ['--adapter', 'node', ...process.argv.slice(2)]);
