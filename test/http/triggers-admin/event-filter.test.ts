// The eventFilter operators on actor data, occurredAt and declared payload paths (pure; no server).
import t from 'tap';
import { filterIssues, matchesFilter, type InboundEvent } from '../../../runtime/triggers/event-filter.js';

const catalog = { payloadPaths: ['contact.seats', 'contact.tier', 'contact.tags', 'contact.email', 'contact.address'] };
const event: InboundEvent = {
  type: 'contact.created',
  occurredAt: Date.UTC(2026, 10, 22, 10),
  actor: { id: 'u-1', email: 'kim@ops.acme.test', roles: ['admin'] },
  payload: { contact: { seats: 50, tier: 'pro', tags: ['vip', 3], email: 'Big@Corp.test', address: { city: 'Lyon' } } },
};
const match = (field: string, operator: any, value: any) => matchesFilter({ field, operator, value }, catalog, event);

t.test('equals / not-equals compare JSON values (objects key-order independent)', async (t) => {
  t.ok(match('contact.tier', 'equals', 'pro'));
  t.notOk(match('contact.tier', 'equals', 'Pro'));
  t.ok(match('contact.seats', 'equals', 50));
  t.notOk(match('contact.seats', 'equals', '50'), 'no coercion');
  t.ok(match('contact.address', 'equals', { city: 'Lyon' }));
  t.ok(match('actor.roles', 'equals', ['admin']));
  t.ok(match('contact.tier', 'not-equals', 'free'));
  t.notOk(match('contact.tier', 'not-equals', 'pro'));
});

t.test('> and < on numbers and on occurredAt', async (t) => {
  t.ok(match('contact.seats', '>', 49));
  t.notOk(match('contact.seats', '>', 50));
  t.ok(match('contact.seats', '<', 51));
  t.notOk(match('contact.tier', '>', 1), 'a string field never compares');
  t.ok(match('occurredAt', '>', '2026-11-22T09:59:59Z'));
  t.notOk(match('occurredAt', '>', '2026-11-22T10:00:00Z'));
  t.ok(match('occurredAt', '<', Date.UTC(2026, 10, 23)));
  t.ok(match('occurredAt', 'equals', '2026-11-22T10:00:00.000Z'));
});

t.test('contains: substring of a string, element of an array', async (t) => {
  t.ok(match('contact.email', 'contains', '@Corp'));
  t.notOk(match('contact.email', 'contains', '@corp'), 'case-sensitive');
  t.ok(match('contact.tags', 'contains', 'vip'));
  t.ok(match('contact.tags', 'contains', 3));
  t.notOk(match('contact.tags', 'contains', 'vi'), 'array elements match whole');
  t.ok(match('actor.email', 'contains', '@ops.'));
  t.notOk(match('contact.seats', 'contains', 5), 'a number contains nothing');
});

t.test('a field the event does not carry never matches, not-equals included; undeclared paths never match', async (t) => {
  t.notOk(match('contact.phone', 'not-equals', 'x'), 'undeclared');
  t.notOk(matchesFilter({ field: 'contact.tier', operator: 'not-equals', value: 'free' }, catalog, { ...event, payload: { contact: {} } }));
  t.notOk(matchesFilter({ field: 'actor.id', operator: 'not-equals', value: 'x' }, catalog, { ...event, actor: null }));
  t.notOk(match('actor.email.domain', 'equals', 'x'), 'a path through a string');
});

t.test('creation issues name the part at fault', async (t) => {
  t.same(filterIssues({ field: 'contact.seats', operator: '>', value: 10 }, catalog), []);
  t.equal(filterIssues({ field: 'nope', operator: 'equals', value: 1 }, catalog)[0]!.path, 'eventFilter.field');
  t.equal(filterIssues({ field: 'contact.seats', operator: '<', value: true }, catalog)[0]!.path, 'eventFilter.value');
  t.equal(filterIssues({ field: 'occurredAt', operator: 'equals', value: 'soon' }, catalog)[0]!.path, 'eventFilter.value');
  t.same(filterIssues({ field: 'occurredAt', operator: '>', value: 1_700_000_000_000 }, catalog), []);
  t.same(filterIssues({ field: 'actor.anything.deep', operator: 'contains', value: 'x' }, catalog), []);
});
