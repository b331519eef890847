// The service on a file DB in its own process, for the SIGKILL test: args <dbPath> [--apply]; prints { port, refs } when ready.
import pino from 'pino';
import { announce, exitWithParent } from '../../bench/child-lifecycle.js';
import { createService } from '../../http/service.js';
import { createLogger } from '../../runtime/logger.js';
import { fireWorkspace } from '../helpers/fire-workspace.js';

const [dbPath, flag] = process.argv.slice(2);
if (dbPath === undefined) throw new Error('usage: fire-crash.child.ts <dbPath> [--apply]');
const service = await createService({
  dbPath,
  logger: createLogger('warn', pino.destination(2)),
  config: { keyRateLimit: { ratePerSecond: 0, burst: 0 }, ipRateLimit: { ratePerSecond: 0, burst: 0 } },
});
exitWithParent(() => service.close());
// Applied on the first boot only: a key's secret is printed once, when it is created.
const refs = flag === '--apply' ? (await service.applyManifest(fireWorkspace())).refs : {};
const port = await service.listen(0, '127.0.0.1');
announce({ port, refs });
