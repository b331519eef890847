// A session pump that meets a failing store (here: closed) logs and ends: no unhandled rejection, idle() and stop() resolve.
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { createSessionDispatcher } from '../../../runtime/turns/dispatcher.js';
import { openTestStore } from '../../helpers/test-store.js';

t.test('a pump whose store fails is logged and ends; idle() and stop() resolve (a draining node must not throw from a stray pump)', async (t) => {
  const db = await openTestStore(t);
  const store = db.store;
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
  const dispatcher = createSessionDispatcher({ store, logger });
  // A real failure: every query on a closed database (SQLite) or an ended pool (PostgreSQL) throws.
  await db.close();
  dispatcher.dispatch('session-1');
  await t.resolves(dispatcher.idle(), 'idle() resolves');
  t.match(lines.map((line) => JSON.parse(line)), [{ level: 40, sessionId: 'session-1', err: db.engine === 'sqlite' ? /not open/ : /after calling end on the pool/, msg: /session pump stopped on an error/ }]);
  dispatcher.dispatch('session-2');
  await t.resolves(dispatcher.stop(), 'stop() resolves with a failing pump in flight');
});
