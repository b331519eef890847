// Storage refusals a client may retry become 503 SERVICE_UNAVAILABLE with Retry-After; a lost unique-key race 409; an unknown commit outcome stays a 500.
import t from 'tap';
import { errorReply } from '../../http/error-reply.js';
import { ConstraintViolationError } from '../../storage/port/errors.js';
import { BatchRolledBackError, CommitOutcomeUnknownError, WriterOverloadedError } from '../../storage/port/unit-errors.js';

t.test('a full writer queue answers 503 with the Retry-After the writer computed', async (t) => {
  const { reply, unexpected } = errorReply(new WriterOverloadedError(10_000, 7));
  t.equal(reply.status, 503);
  t.equal(reply.headers?.['retry-after'], '7');
  t.match(reply.body, { error: { code: 'SERVICE_UNAVAILABLE' } });
  t.notOk(unexpected, 'a refusal, not a bug to log');
});

t.test('a batch rolled back before commit answers 503 Retry-After 1; its cause never reaches the body', async (t) => {
  const { reply } = errorReply(new BatchRolledBackError(new Error('password=hunter2 connection reset')));
  t.equal(reply.status, 503);
  t.equal(reply.headers?.['retry-after'], '1');
  t.notMatch(JSON.stringify(reply.body), /hunter2|connection reset/);
});

t.test('an unknown commit outcome is not a retryable refusal: a generic 500', async (t) => {
  const { reply, unexpected } = errorReply(new CommitOutcomeUnknownError(new Error('socket closed')));
  t.equal(reply.status, 500);
  t.ok(unexpected);
});

t.test('a duplicate key that escapes a request answers 409 CONFLICT concurrent_write on either driver; the key values never reach the body', async (t) => {
  const sqlite = Object.assign(new Error('UNIQUE constraint failed: users.email'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
  for (const error of [new ConstraintViolationError('unique', 'users', 'users_email'), sqlite]) {
    const { reply, unexpected } = errorReply(error);
    t.equal(reply.status, 409);
    t.match(reply.body, { error: { code: 'CONFLICT', message: String, details: { reason: 'concurrent_write' } } });
    t.notMatch(JSON.stringify(reply.body), /users|email/);
    t.notOk(unexpected);
  }
  t.equal(errorReply(new ConstraintViolationError('foreign_key', 'users', 'users_org')).reply.status, 500, 'other constraints stay a bug');
});
