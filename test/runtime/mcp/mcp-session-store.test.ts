// MCP protocol sessions: random ids, binding to the initializing credential, idle expiry on the injected clock, caps.
import t from 'tap';
import { ManualClock } from '../../../runtime/clock.js';
import { createMcpSessionStore } from '../../../runtime/mcp/mcp-session-store.js';

const owner = (credentialId: string) => ({ credentialId, userId: `user-${credentialId}`, orgId: 'org-1' });

function store(options: Partial<{ idleMs: number; maxSessions: number; maxPerCredential: number }> = {}) {
  const clock = new ManualClock(Date.UTC(2026, 10, 22));
  return { clock, sessions: createMcpSessionStore({ clock, idleMs: 60_000, maxSessions: 100, maxPerCredential: 10, ...options }) };
}

t.test('ids are 32 random bytes in base64url and differ every time', async (t) => {
  const { sessions } = store();
  const ids = new Set(Array.from({ length: 50 }, () => sessions.create(owner('k1'), '2025-06-18').id));
  t.equal(ids.size, 50);
  for (const id of ids) t.match(id, /^[A-Za-z0-9_-]{43}$/);
});

t.test('a session answers only to the credential that created it', async (t) => {
  const { sessions } = store();
  const session = sessions.create(owner('k1'), '2025-06-18');
  t.equal(sessions.use(session.id, 'k2'), undefined);
  t.equal(sessions.use(session.id, 'k1'), session);
  t.equal(sessions.use('unknown', 'k1'), undefined);
});

t.test('idle expiry follows the injected clock; use renews it; end aborts waits', async (t) => {
  const { clock, sessions } = store();
  const session = sessions.create(owner('k1'), '2025-06-18');
  clock.advance(59_999);
  t.ok(sessions.use(session.id, 'k1'), 'just inside the window');
  clock.advance(59_999);
  t.ok(sessions.use(session.id, 'k1'), 'use renewed it');
  clock.advance(60_000);
  t.equal(sessions.use(session.id, 'k1'), undefined, 'idle for the whole window: gone');
  t.equal(sessions.size, 0);

  const other = sessions.create(owner('k1'), '2025-06-18');
  const wait = new AbortController();
  other.inFlight.set('number:1', wait);
  sessions.end(other);
  t.ok(wait.signal.aborted, 'waiting calls stop when the session ends');
  t.equal(sessions.use(other.id, 'k1'), undefined);
});

t.test('caps: one key loses its own least recently used session; the total evicts the least recently used', async (t) => {
  const { clock, sessions } = store({ maxPerCredential: 2, maxSessions: 3 });
  const a1 = sessions.create(owner('a'), '2025-06-18');
  clock.advance(1);
  const a2 = sessions.create(owner('a'), '2025-06-18');
  clock.advance(1);
  sessions.use(a1.id, 'a');
  const a3 = sessions.create(owner('a'), '2025-06-18');
  t.equal(sessions.use(a2.id, 'a'), undefined, "a's least recently used went");
  t.ok(sessions.use(a1.id, 'a'));
  t.ok(sessions.use(a3.id, 'a'));

  const b1 = sessions.create(owner('b'), '2025-06-18');
  t.equal(sessions.size, 3);
  const c1 = sessions.create(owner('c'), '2025-06-18');
  t.equal(sessions.size, 3, 'never more than maxSessions');
  t.equal(sessions.use(a1.id, 'a'), undefined, 'the least recently used of all went');
  t.ok(sessions.use(b1.id, 'b'));
  t.ok(sessions.use(c1.id, 'c'));
});
