// Guards the turn's tool catalog cache: reused while the organization's integrations are unchanged, rebuilt after a write.
import t from 'tap';
import { createCatalogCache } from '../../../runtime/turns/turn-tools.js';
import { crmIntegration } from '../tools/crm-integration.fixture.js';
import { openTestStore } from '../../helpers/test-store.js';

async function seeded(t: { teardown(fn: () => unknown): void }) {
  const { store } = await openTestStore(t);
  await store.repos.tenancy.insertOrganization({ id: 'org', name: 'Org', partnerId: null, clientSegment: null, directLoginDisabled: false, rolloutFlags: {}, createdAt: 1, suspendedAt: null });
  const crm = crmIntegration('http://127.0.0.1:4010');
  const upsert = (definition: typeof crm, updatedAt: number) =>
    store.repos.integrations.upsertIntegration({ id: definition.id, orgId: null, name: definition.name, description: definition.description, definition, available: true, updatedAt });
  await upsert(crm, 1);
  return { store, crm, upsert };
}

t.test('the same catalog object while nothing changed; a changed definition (same updatedAt) rebuilds it', async (t) => {
  const { store, crm, upsert } = await seeded(t);
  const catalogFor = createCatalogCache(store.repos.integrations);
  const first = (await catalogFor('org'));
  t.ok(first.findTool('crm.get_contact'), 'the stored definition is in the catalog');
  t.equal((await catalogFor('org')), first, 'reused: the schema objects stay the ones the validator compiled');

  const renamed = { ...crm, tools: crm.tools.map((tool) => ({ ...tool, description: `${tool.description} (v2)` })) };
  await upsert(renamed, 1);
  const second = (await catalogFor('org'));
  t.not(second, first, 'rebuilt after the write, though updatedAt did not move');
  t.match(second.findTool('crm.get_contact'), { tool: { description: /\(v2\)$/ } });

  // A write elsewhere refills the cached list; an unchanged signature keeps the catalog.
  await store.repos.tenancy.renameOrganization('org', 'Org 2');
  t.equal((await catalogFor('org')), second, 'same integrations, same catalog');
});

t.test('an unavailable integration leaves the catalog', async (t) => {
  const { store, crm } = await seeded(t);
  const catalogFor = createCatalogCache(store.repos.integrations);
  t.ok((await catalogFor('org')).findTool('crm.get_contact'));
  const stored = (await store.repos.integrations.integration(crm.id))!;
  await store.repos.integrations.upsertIntegration({ ...stored, available: false });
  t.equal((await catalogFor('org')).findTool('crm.get_contact'), undefined);
});
