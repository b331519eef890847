// A short-lived embedding process for exit-path.test.ts: boot on a file DB, write, serve, close, and leave without process.exit.
import pino from 'pino';
import { createService, onSqlite } from '../../http/service.js';
import { createLogger } from '../../runtime/logger.js';
import { seedUser } from '../helpers/fixtures.js';
import { testHttpAdapter } from '../helpers/server.js';

const [dbPath] = process.argv.slice(2);
const service = await createService({ dbPath, logger: createLogger('warn', pino.destination(2)), config: { httpAdapter: testHttpAdapter() } });
const user = await seedUser(onSqlite(service).store);
const port = await service.listen(0, '127.0.0.1');
const me = await fetch(`http://127.0.0.1:${port}/api/v1/me`, { headers: { authorization: `Bearer ${user.apiKey}` } });
const login = await fetch(`http://127.0.0.1:${port}/api/v1/console/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: user.email, password: user.password }),
});
await service.close();
// The event loop must empty on its own: a handle left open (socket, timer, statement) would keep us alive.
process.stdout.write(`${JSON.stringify({ adapter: service.adapter, me: me.status, login: login.status })}\n`);
