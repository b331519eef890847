// Guards the callerCredentials wire shape: every SPEC limit at its edge and one past, strictness, and secret-free errors.
import t from 'tap';
import * as z from 'zod';
import {
  callerCredentialExpiresAtSchema,
  callerCredentialsSchema,
  normalizeCallerCredentials,
} from '../../../runtime/vault/caller-credentials.schema.js';

const ok = (value: unknown) => callerCredentialsSchema.safeParse(value).success;
const withEntry = (entry: unknown, id = 'github') => ({ integrations: { [id]: entry } });
const fieldsOf = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, 'v']));
const messages = (value: unknown) => {
  const result = callerCredentialsSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
};

t.test('integrations is required when callerCredentials is present (SPEC Caller credentials object)', async (t) => {
  t.notOk(ok({}));
  t.same(messages({}), ['integrations is required when callerCredentials is present']);
  t.ok(ok({ integrations: {} }), 'an empty map is a valid (empty) credentials object');
  t.notOk(ok({ integrations: [] }), 'an array is not a map');
  t.notOk(ok(null));
  t.notOk(ok('token'));
});

t.test('strict: unknown keys are rejected, not stripped', async (t) => {
  t.notOk(ok({ integrations: {}, extra: 1 }), 'top-level unknown key');
  t.notOk(ok(withEntry({ token: 'abc', tokn: 'abc' })), 'entry unknown key');
  t.notOk(ok(JSON.parse('{"integrations":{},"__proto__":{}}')), 'top-level __proto__');
  t.notOk(ok(JSON.parse('{"integrations":{"__proto__":{"token":"x"}}}')), '__proto__ as an integration id is refused, not silently dropped');
  t.notOk(ok(JSON.parse('{"integrations":{"gh":{"fields":{"__proto__":"x","a":"b"}}}}')), '__proto__ as a field name is refused');
});

t.test('integration id is 1-64 characters (SPEC Limits)', async (t) => {
  t.notOk(ok(withEntry({ token: 't' }, '')), '0 chars');
  t.ok(ok(withEntry({ token: 't' }, 'a')), '1 char');
  t.ok(ok(withEntry({ token: 't' }, 'a'.repeat(64))), '64 chars');
  t.notOk(ok(withEntry({ token: 't' }, 'a'.repeat(65))), '65 chars');
});

t.test('token is 1-8,192 characters with no newline (SPEC Limits)', async (t) => {
  t.notOk(ok(withEntry({ token: '' })), '0 chars');
  t.ok(ok(withEntry({ token: 'a' })), '1 char');
  t.ok(ok(withEntry({ token: 'a'.repeat(8192) })), '8,192 chars');
  t.notOk(ok(withEntry({ token: 'a'.repeat(8193) })), '8,193 chars');
  t.notOk(ok(withEntry({ token: 'ab\ncd' })), 'LF');
  t.notOk(ok(withEntry({ token: 'ab\rcd' })), 'CR');
  t.notOk(ok(withEntry({ token: 'abcd\n' })), 'trailing LF');
  t.ok(ok(withEntry({ token: 'Bearer-ish value with spaces\tand tabs' })), 'format is not interpreted');
  t.notOk(ok(withEntry({ token: 42 })), 'not a string');
  t.same(messages(withEntry({ token: 'ab\ncd' })), ['token must not contain a newline']);
  t.same(messages(withEntry({ token: '' })), ['token must be 1-8192 characters']);
});

t.test('fields has 1-16 entries; fields: {} is invalid (SPEC rule 4)', async (t) => {
  t.notOk(ok(withEntry({ fields: {} })), '0 entries');
  t.same(messages(withEntry({ fields: {} })), ['fields must have 1-16 entries']);
  t.ok(ok(withEntry({ fields: fieldsOf(1) })), '1 entry');
  t.ok(ok(withEntry({ fields: fieldsOf(16) })), '16 entries');
  t.notOk(ok(withEntry({ fields: fieldsOf(17) })), '17 entries');
  t.notOk(ok(withEntry({ fields: ['a'] })), 'an array is not a map');
});

t.test('field names are 1-64 ASCII letters, digits or _', async (t) => {
  t.ok(ok(withEntry({ fields: { a: 'v' } })), '1 char');
  t.ok(ok(withEntry({ fields: { ['A_9'.padEnd(64, 'z')]: 'v' } })), '64 chars');
  t.notOk(ok(withEntry({ fields: { ['a'.repeat(65)]: 'v' } })), '65 chars');
  t.notOk(ok(withEntry({ fields: { '': 'v' } })), 'empty name');
  for (const name of ['api-key', 'api.key', 'api key', 'clé', 'a\nb']) {
    t.notOk(ok(withEntry({ fields: { [name]: 'v' } })), `${JSON.stringify(name)} is not allowed`);
  }
});

t.test('field values have the token bounds', async (t) => {
  t.notOk(ok(withEntry({ fields: { key: '' } })), '0 chars');
  t.ok(ok(withEntry({ fields: { key: 'a' } })), '1 char');
  t.ok(ok(withEntry({ fields: { key: 'a'.repeat(8192) } })), '8,192 chars');
  t.notOk(ok(withEntry({ fields: { key: 'a'.repeat(8193) } })), '8,193 chars');
  t.notOk(ok(withEntry({ fields: { key: 'a\nb' } })), 'LF');
  t.notOk(ok(withEntry({ fields: { key: 'a\rb' } })), 'CR');
  t.notOk(ok(withEntry({ fields: { key: 1 } })), 'not a string');
});

t.test('fallbackAllowed is an optional boolean, default true', async (t) => {
  const parsed = callerCredentialsSchema.parse(withEntry({ token: 't' }));
  t.equal(parsed.integrations.github.fallbackAllowed, true);
  t.ok(ok(withEntry({ fallbackAllowed: false })), 'an entry with only fallbackAllowed: false is valid (rule 4)');
  t.notOk(ok(withEntry({ fallbackAllowed: 'false' })), 'a string is not a boolean');
  t.ok(ok(withEntry({ token: 't', fields: { a: 'b' }, fallbackAllowed: true })), 'token and fields may coexist (rule 3)');
});

t.test('{} equals omission; {fallbackAllowed:false} is kept (SPEC rule 4)', async (t) => {
  const parsed = callerCredentialsSchema.parse({
    integrations: { empty: {}, defaulted: { fallbackAllowed: true }, strict: { fallbackAllowed: false }, gh: { token: 't' } },
  });
  t.same(normalizeCallerCredentials(parsed), {
    integrations: { gh: { token: 't', fallbackAllowed: true }, strict: { fallbackAllowed: false } },
  });
  t.same(normalizeCallerCredentials(callerCredentialsSchema.parse({ integrations: { a: {} } })), { integrations: {} });
});

t.test('normalization is canonical: key order does not matter, and it is idempotent', async (t) => {
  const a = callerCredentialsSchema.parse({ integrations: { z: { fields: { b: '2', a: '1' }, token: 't' }, a: { token: 'u' } } });
  const b = callerCredentialsSchema.parse({ integrations: { a: { token: 'u' }, z: { token: 't', fields: { a: '1', b: '2' } } } });
  const na = normalizeCallerCredentials(a);
  t.equal(JSON.stringify(na), JSON.stringify(normalizeCallerCredentials(b)));
  t.equal(JSON.stringify(na), '{"integrations":{"a":{"token":"u","fallbackAllowed":true},"z":{"token":"t","fields":{"a":"1","b":"2"},"fallbackAllowed":true}}}');
  t.same(normalizeCallerCredentials(na), na);
});

t.test('errors never echo secret values', async (t) => {
  const marker = 'SECRET-MARKER-7f3a';
  const cases: Record<string, unknown> = {
    'token too long': withEntry({ token: marker + 'x'.repeat(8192) }),
    'token with newline': withEntry({ token: `${marker}\n` }),
    'field value too long': withEntry({ fields: { key: marker.repeat(600) } }),
    'field value with CR': withEntry({ fields: { key: `${marker}\r` } }),
    'too many fields': withEntry({ fields: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`f${i}`, marker])) }),
    'unknown key beside a token': withEntry({ token: marker, extra: marker }),
    'bad fallbackAllowed beside a token': withEntry({ token: marker, fallbackAllowed: marker }),
    'proto entry': JSON.parse(`{"integrations":{"__proto__":{"token":"${marker}"}}}`),
  };
  for (const [name, value] of Object.entries(cases)) {
    const result = callerCredentialsSchema.safeParse(value);
    t.notOk(result.success, `${name} fails`);
    if (result.success) continue;
    t.notMatch(JSON.stringify(result.error.issues), marker, `${name}: issues do not contain the value`);
    t.notMatch(result.error.message, marker, `${name}: message does not contain the value`);
    t.notMatch(z.prettifyError(result.error), marker, `${name}: pretty error does not contain the value`);
  }
  // The check above is sensitive: zod only includes inputs when asked to, which routes must never do.
  const reported = callerCredentialsSchema.safeParse(cases['token with newline'], { reportInput: true });
  t.match(JSON.stringify(reported.error?.issues), marker, 'reportInput would leak it, so it must stay off');
});

t.test('callerCredentialExpiresAt is an ISO-8601 timestamp with Z or an offset', async (t) => {
  for (const good of ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.123Z', '2026-06-30T23:59:59+02:00', '2026-06-30T23:59:59-05:30']) {
    t.ok(callerCredentialExpiresAtSchema.safeParse(good).success, good);
  }
  for (const bad of ['2026-01-01T00:00:00', '2026-01-01', 'tomorrow', '2026-13-01T00:00:00Z', '', 1767225600000]) {
    t.notOk(callerCredentialExpiresAtSchema.safeParse(bad).success, JSON.stringify(bad));
  }
});
