// A session pump that meets a failing store (here: closed) logs and ends: no unhandled rejection, idle() and stop() resolve.
import t from 'tap';
import { createSessionDispatcher } from '../../../runtime/turns/dispatcher.js';
import { openStore } from '../../../storage/store.js';

t.test('a pump whose store fails is logged and ends; idle() and stop() resolve (a draining node must not throw from a stray pump)', async (t) => {
  const store = openStore({ path: ':memory:' });
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const logger = { warn: (fields: Record<string, unknown>, message: string) => void warnings.push({ fields, message }), error: () => {} };
  const dispatcher = createSessionDispatcher({ store, logger });
  // A real failure: every query on a closed database throws.
  store.close();
  dispatcher.dispatch('session-1');
  await t.resolves(dispatcher.idle(), 'idle() resolves');
  t.match(warnings, [{ fields: { sessionId: 'session-1', err: /not open/ }, message: /session pump stopped on an error/ }]);
  dispatcher.dispatch('session-2');
  await t.resolves(dispatcher.stop(), 'stop() resolves with a failing pump in flight');
});
