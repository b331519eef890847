// Storage refusals a client may retry become 503 SERVICE_UNAVAILABLE with Retry-After; an unknown commit outcome stays a 500.
import t from 'tap';
import { errorReply } from '../../http/error-reply.js';
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
