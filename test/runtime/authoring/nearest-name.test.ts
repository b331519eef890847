// "Did you mean": edit distance with an early exit, and the nearest-name choice the verifier proposes.
import t from 'tap';
import { editDistance, nearestName } from '../../../runtime/authoring/nearest-name.js';

t.test('editDistance is Levenshtein distance and stops early past its limit', async (t) => {
  t.equal(editDistance('kitten', 'sitting'), 3);
  t.equal(editDistance('', 'abc'), 3);
  t.equal(editDistance('crm.get_contat', 'crm.get_contact'), 1);
  t.equal(editDistance('abc', 'abc'), 0);
  t.equal(editDistance('abcdef', 'uvwxyz', 2), 3, 'limit + 1 once it must exceed the limit');
  t.equal(editDistance('a', 'abcdefgh', 3), 4, 'length difference alone exceeds the limit');
});

t.test('nearestName proposes the closest candidate within a third of the length (at least 2 edits), case-insensitively', async (t) => {
  const tools = ['crm.get_contact', 'crm.update_contact', 'billing.get_invoice', 'knowledge.search'];
  t.equal(nearestName('crm.get_contat', tools), 'crm.get_contact');
  t.equal(nearestName('CRM.Update_Contact', tools), 'crm.update_contact');
  t.equal(nearestName('knowledge.serch', tools), 'knowledge.search');
  t.equal(nearestName('weather.forecast', tools), null, 'nothing close enough');
  t.equal(nearestName('crm.get_contact', []), null);
});

t.test('ties prefer the same integration, then alphabetical order', async (t) => {
  t.equal(nearestName('crm.list_b', ['zzz.list_a', 'crm.list_c']), 'crm.list_c', 'same distance: same integration wins');
  t.equal(nearestName('crm.list_x', ['crm.list_b', 'crm.list_a']), 'crm.list_a', 'same distance and integration: alphabetical');
});
