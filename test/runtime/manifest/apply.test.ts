import t, { type Test } from 'tap';
import { hashSecret, isWellFormed } from '../../../runtime/auth/secrets.js';
import { verifyPassword } from '../../../runtime/auth/passwords.js';
import { ManualClock } from '../../../runtime/clock.js';
import { applyManifest, createManifestApplier } from '../../../runtime/manifest/apply.js';
import { loadManifestFile } from '../../../runtime/manifest/load.js';
import { ManifestError } from '../../../runtime/manifest/manifest-error.js';
import { openSecret, sealedSecretAad } from '../../../runtime/vault/sealed-secret.js';
import { openTestStore } from '../../helpers/test-store.js';
import { DEMO_MANIFEST_PATH, countRows, example, testKeyRing } from './manifest-fixtures.js';

async function setup(t: Test) {
  const db = await openTestStore(t);
  return { db, store: db.store, clock: new ManualClock(), keyRing: testKeyRing() };
}

async function refusal(t: Test, work: Promise<unknown>): Promise<ManifestError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof ManifestError) return error;
    throw error;
  }
  t.fail('expected a ManifestError');
  return new ManifestError([]);
}

const KEY_REFS = ['ada-key', 'bob-key', 'eve-key', 'gina-key', 'northwind-key'];

t.test('the contract example applies: every ref maps to its row', async (t) => {
  const { db, store, clock, keyRing } = await setup(t);
  const { refs } = await applyManifest(store, example(), { clock, keyRing });
  const r = store.repos;

  const acme = (await r.tenancy.organization(refs.acme!))!;
  t.equal(acme.name, 'Acme');
  const ada = (await r.tenancy.user(refs.ada!))!;
  t.equal(ada.email, 'ada@acme.test');
  t.ok(await verifyPassword('ada-password-1', ada.passwordHash), 'password stored as a verifiable hash');
  t.not(ada.passwordHash, 'ada-password-1');
  t.equal(await r.tenancy.orgRole(refs.acme!, refs.eve!), 'admin');
  t.equal(await r.tenancy.domainRole(refs.sales!, refs.bob!), 'operator');
  t.equal(await r.tenancy.domainRole(refs.sales!, refs.eve!), null, 'eve is no member of sales');
  t.same((await r.tenancy.domain(refs.sales!))!.approvalPolicy, { approvers: [refs.ada] });

  for (const ref of KEY_REFS) t.ok(isWellFormed(refs[ref]!, ref === 'northwind-key' ? 'svp_' : 'sv_'), `${ref} is a fresh secret`);
  const adaKey = (await r.credentials.apiKeyByHash(hashSecret(refs['ada-key']!)))!;
  t.equal(adaKey.userId, refs.ada);
  t.equal(adaKey.orgId, refs.acme);
  t.equal((await r.partners.partnerKeyByHash(hashSecret(refs['northwind-key']!)))?.partnerId, refs.northwind);

  // Agents: published ones get revision 1 with the belt frozen from the procedure and bindings.
  const lookup = (await r.automations.automation(refs.lookup!))!;
  t.match(lookup, { kind: 'agent', domainId: refs.sales, orgId: refs.acme, publishedRevision: 1, description: 'Finds a contact and summarises it' });
  t.same((await r.automations.agentRevision(refs.lookup!, 1))!.belt, [{ integrationId: 'crm', identityMode: 'caller_preferred' }]);
  t.same((await r.automations.agentRevision(refs.upgrader!, 1))!.belt, [{ integrationId: 'crm', identityMode: 'caller_required' }]);
  t.same(((await r.automations.agentRevision(refs.upgrader!, 1))!.setup as { approvalTools: string[] }).approvalTools, ['crm.update_contact']);
  t.same((await r.automations.agentRevision(refs['globex-agent']!, 1))!.belt, []);
  t.equal((await r.automations.automation(refs.drafty!))!.publishedRevision, null);
  t.equal(await r.automations.latestAgentRevision(refs.drafty!), undefined, 'an unpublished agent has no revision');
  t.equal((await r.automations.agentSetup(refs.drafty!))!.procedure, 'Use #crm.get_contact.');
  t.same(await r.automations.agentBindings(refs.upgrader!), [{ automationId: refs.upgrader, integrationId: 'crm', policy: 'caller_required' }]);
  t.same(await r.automations.knowledgeSelection(refs.lookup!), { automationId: refs.lookup, mode: 'domain', moduleIds: [] });

  // Flow: version 1 published, with its step graph and bindings.
  const enrich = (await r.automations.automation(refs.enrich!))!;
  t.match(enrich, { kind: 'flow', publishedRevision: 1 });
  const version = (await r.automations.flowVersion(refs.enrich!, 1))!;
  t.equal((version.definition as any).steps[1].then[0].approval, true);
  t.same(version.bindings, { crm: 'service' });

  // Triggers: subscribers in manifest order; configs per type.
  t.same((await r.triggers.subscribers(refs['new-lead']!)).map((s) => s.automationId), [refs.lookup, refs.enrich]);
  t.equal((await r.triggers.trigger(refs.paused!))!.active, false);
  t.same((await r.triggers.trigger(refs.nightly!))!.config, { cron: '0 2 * * *', timezone: 'Europe/Paris', input: { id: 'c-1' } });
  const signup = (await r.triggers.trigger(refs.signup!))!;
  t.same(signup.config, {
    sourceIntegrationId: 'crm',
    connectionId: refs['crm-conn'],
    eventType: 'contact.created',
    filter: { field: 'contact.seats', operator: '>', value: 50 },
  });
  t.equal(openSecret(keyRing, signup.endpointSecretSealed!, sealedSecretAad.triggerEndpoint(refs.acme!, refs.signup!)), 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  t.equal((await r.triggers.trigger(refs['globex-fire']!))!.orgId, refs.globex);

  // Connection secret sealed and bound to its row.
  const connection = (await r.integrations.connection(refs['crm-conn']!))!;
  t.match(connection, { integrationId: 'crm', domainId: refs.sales, orgId: refs.acme });
  t.same(openSecret(keyRing, connection.secretSealed!, sealedSecretAad.connection(refs.acme!, refs['crm-conn']!)), { token: 'org-token-123' });
  t.throws(() => openSecret(keyRing, connection.secretSealed!, sealedSecretAad.connection(refs.globex!, refs['crm-conn']!)), 'another binding cannot open it');
  t.same(((await r.integrations.integration('crm'))!.definition as { tools: Array<{ name: string }> }).tools.map((tool: { name: string }) => tool.name), ['crm.get_contact', 'crm.update_contact']);

  // Knowledge: published articles indexed, drafts not; module memberships.
  t.same((await r.knowledge.matchPublishedArticles(refs.acme!, 'seats', 10)).map((a) => a.id), [refs.pricing]);
  t.same(await r.knowledge.matchPublishedArticles(refs.acme!, 'ready', 10), [], 'the draft is not indexed');
  t.same(await r.knowledge.matchPublishedArticles(refs.globex!, 'seats', 10), [], 'search is per organization');
  t.equal((await r.knowledge.article(refs.wip!))!.publishedAt, null);
  t.same(await r.knowledge.moduleArticleIds(refs['pricing-module']!), [refs.pricing]);
  t.match(await r.knowledge.module(refs['pricing-module']!), { kind: 'domain', domainId: refs.sales, name: 'Pricing' });

  // Partner: grant, quota, template.
  t.match(await r.partners.partner(refs.northwind!), { provisioningEnabled: true, quotaTotal: 3, quotaUsed: 0, templateId: refs.starter });
  const template = (await r.partners.partnerTemplate(refs.starter!))!;
  t.equal(template.ref, 'starter');
  t.match(template.definition, { agents: [{ entitled: true }] });
  t.equal((await r.partners.partnerApp(refs['northwind-app']!))!.name, 'Northwind embedded');
});

t.test('applying twice creates nothing new and returns the same ids; keys show their secret only once', async (t) => {
  const { db, store, clock, keyRing } = await setup(t);
  const first = await applyManifest(store, example(), { clock, keyRing });
  const counts = await countRows(db);
  clock.advance(60_000);
  const second = await applyManifest(store, example(), { clock, keyRing });
  t.same(await countRows(db), counts, 'no table gained or lost a row');
  t.ok(Object.values(counts).some((n) => n > 0));
  t.same(Object.keys(second.refs).sort(), Object.keys(first.refs).sort());
  for (const [ref, value] of Object.entries(first.refs)) {
    if (KEY_REFS.includes(ref)) {
      const row = ref === 'northwind-key' ? await store.repos.partners.partnerKeyByHash(hashSecret(value)) : await store.repos.credentials.apiKeyByHash(hashSecret(value));
      t.equal(second.refs[ref], row?.id, `${ref}: the second apply shows the key id`);
    } else {
      t.equal(second.refs[ref], value, `${ref}: same id`);
    }
  }
  t.equal((await store.repos.automations.latestAgentRevision(first.refs.lookup!))!.revision, 1, 'unchanged setup publishes no new revision');
  t.equal((await store.repos.automations.automation(first.refs.lookup!))!.updatedAt, clock.now() - 60_000, 'unchanged rows are not rewritten');
});

t.test('a changed setup publishes a new revision; other changes update in place', async (t) => {
  const { db, store, clock, keyRing } = await setup(t);
  const { refs } = await applyManifest(store, example(), { clock, keyRing });
  const counts = await countRows(db);
  const changed = example();
  changed.organizations[0].name = 'Acme Corp';
  changed.organizations[0].agents[0].name = 'Contact finder';
  changed.organizations[0].agents[0].setup.procedure = 'Read the contact with #crm.get_contact and report its email.';
  changed.organizations[0].agents[1].name = 'Tier changer';
  changed.organizations[0].triggers[0].subscribers = ['enrich', 'lookup'];
  changed.organizations[0].knowledge.bases[0].articles[0].body = 'Enterprise starts at 100 seats.';
  changed.organizations[0].flows[0].steps[0].args = { id: '{{input.id}}', note: 'x' };
  changed.organizations[0].flows[0].publish = true;
  changed.organizations[0].connections[0].secret = { token: 'org-token-456' };
  clock.advance(1_000);
  const again = await applyManifest(store, changed, { clock, keyRing });
  const r = store.repos;
  t.equal(again.refs.lookup, refs.lookup);
  t.equal((await r.tenancy.organization(refs.acme!))!.name, 'Acme Corp');
  t.equal((await r.automations.automation(refs.lookup!))!.name, 'Contact finder');
  t.equal((await r.automations.automation(refs.lookup!))!.publishedRevision, 2);
  t.match((await r.automations.agentRevision(refs.lookup!, 2))!.setup, { procedure: /its email/ });
  t.match((await r.automations.agentRevision(refs.lookup!, 1))!.setup, { procedure: /its tier/ }, 'revision 1 is immutable');
  t.equal((await r.automations.latestAgentRevision(refs.upgrader!))!.revision, 1, 'a rename alone publishes nothing');
  t.equal((await r.automations.automation(refs.upgrader!))!.name, 'Tier changer');
  t.same((await r.triggers.subscribers(refs['new-lead']!)).map((s) => s.automationId), [refs.enrich, refs.lookup]);
  t.equal((await r.automations.automation(refs.enrich!))!.publishedRevision, 2);
  t.same((await r.knowledge.matchPublishedArticles(refs.acme!, '100', 10)).map((a) => a.id), [refs.pricing], 'republished text is indexed');
  t.same(await r.knowledge.matchPublishedArticles(refs.acme!, '50', 10), [], 'the old text left the index');
  const sealed = (await r.integrations.connection(refs['crm-conn']!))!.secretSealed!;
  t.same(openSecret(keyRing, sealed, sealedSecretAad.connection(refs.acme!, refs['crm-conn']!)), { token: 'org-token-456' });
  const after = await countRows(db);
  t.equal(after.agent_revisions, counts.agent_revisions! + 1);
  t.equal(after.flow_versions, counts.flow_versions! + 1);
  for (const table of ['automations', 'triggers', 'subscriptions', 'articles', 'users', 'api_keys', 'connections', 'manifest_refs']) {
    t.equal(after[table], counts[table], `${table} unchanged in size`);
  }
});

t.test('a broken manifest is refused with its JSON path, and every table stays as migrated (empty)', async (t) => {
  const cases: Array<[string, (m: any) => void]> = [
    ['organizations[0].agents[1].setup.model', (m) => (m.organizations[0].agents[1].setup.model = '')],
    ['organizations[0].triggers[1].subscribers[0]', (m) => (m.organizations[0].triggers[1].subscribers = ['ghost'])],
    ['partners[0].templates[0].agents[0].setp', (m) => (m.partners[0].templates[0].agents[0].setp = {})],
    ['organizations[1].domains[0].members[0].user', (m) => (m.organizations[1].domains[0].members[0].user = 'ada')],
  ];
  for (const [path, breakIt] of cases) {
    const { db, store, clock, keyRing } = await setup(t);
    const manifest = example();
    breakIt(manifest);
    const error = await refusal(t, applyManifest(store, manifest, { clock, keyRing }));
    t.ok(error.issues.some((i) => i.path === path), `refused at ${path}: ${error.message}`);
    // A freshly migrated database holds only bookkeeping rows (SQLite's articles_fts_config and the like, PostgreSQL's
    // switchyard_schema).
    const fresh = await openTestStore(t);
    t.same(await countRows(db), await countRows(fresh), `${path}: nothing applied`);
    await fresh.close();
    const nonEmpty = Object.entries(await countRows(db)).filter(([table, n]) => n > 0 && !table.startsWith('articles_fts') && table !== 'switchyard_schema');
    t.same(nonEmpty, [], `${path}: every table is empty`);
  }
});

t.test('a refusal found while writing rolls back everything of that apply', async (t) => {
  const { db, store, clock, keyRing } = await setup(t);
  const { refs } = await applyManifest(store, example(), { clock, keyRing });
  const counts = await countRows(db);
  const changed = example();
  changed.organizations[0].name = 'Renamed first';
  changed.organizations[0].users.push({ ref: 'newbie', email: 'newbie@acme.test', name: 'New', orgRole: 'member', apiKeys: ['newbie-key'] });
  // Ref "paused" was a trigger; naming a flow with it now is refused during the write.
  changed.organizations[0].flows.push({ ...changed.organizations[0].flows[0], ref: 'paused-flow' });
  changed.organizations[0].triggers[1].ref = 'paused-2';
  changed.organizations[0].flows[1].ref = 'paused';
  const error = await refusal(t, applyManifest(store, changed, { clock, keyRing }));
  t.match(error.message, /organizations\[0\]\.flows\[1\]: ref "paused" was applied before as a trigger/);
  t.same(await countRows(db), counts, 'no row added or removed');
  t.equal((await store.repos.tenancy.organization(refs.acme!))!.name, 'Acme', 'the rename before the failure was rolled back');
  t.equal(await store.repos.tenancy.userByEmail('newbie@acme.test'), undefined);
});

t.test('an email cannot change by manifest', async (t) => {
  const { db, store, clock, keyRing } = await setup(t);
  await applyManifest(store, example(), { clock, keyRing });
  const changed = example();
  changed.organizations[0].users[1].email = 'robert@acme.test';
  const error = await refusal(t, applyManifest(store, changed, { clock, keyRing }));
  t.equal(error.issues[0]!.path, 'organizations[0].users[1].email');
});

t.test('the demo manifest applies through the applier service, idempotently', async (t) => {
  const { db, store, clock, keyRing } = await setup(t);
  const applier = createManifestApplier({ store, clock, keyRing });
  const manifest = loadManifestFile(DEMO_MANIFEST_PATH);
  const { refs } = await applier.apply(manifest);
  t.ok(isWellFormed(refs['demo-key']!, 'sv_'));
  const owner = (await store.repos.credentials.apiKeyByHash(hashSecret(refs['demo-key']!)))!;
  t.equal((await store.repos.tenancy.user(owner.userId))!.email, 'demo@switchyard.local');
  t.equal(await store.repos.tenancy.orgRole(refs.demo!, owner.userId), 'owner');
  t.same((await store.repos.triggers.subscribers(refs['demo-trigger']!)).map((s) => s.automationId), [refs['demo-agent'], refs['demo-flow']]);
  t.equal((await store.repos.automations.automation(refs['demo-agent']!))!.publishedRevision, 1);
  t.same((await store.repos.automations.agentRevision(refs['demo-agent']!, 1))!.belt, [{ integrationId: 'knowledge', identityMode: 'service' }]);
  t.equal((await store.repos.automations.automation(refs['demo-flow']!))!.publishedRevision, 1);
  const counts = await countRows(db);
  const again = await applier.apply(manifest);
  t.same(await countRows(db), counts);
  t.equal(again.refs['demo-key'], owner.id);
});

t.test('a later manifest may name integrations applied earlier', async (t) => {
  const { db, store, clock, keyRing } = await setup(t);
  await applyManifest(store, { integrations: example().integrations }, { clock, keyRing });
  const later = { organizations: [{ ...example().organizations[1], connections: [{ ref: 'g-crm', integration: 'crm', secret: { token: 'abc' } }] }] };
  const { refs } = await applyManifest(store, later, { clock, keyRing });
  t.equal((await store.repos.integrations.connection(refs['g-crm']!))!.integrationId, 'crm');
});

t.test('one store, two organizations sharing nothing', async (t: Test) => {
  const { db, store, clock, keyRing } = await setup(t);
  const { refs } = await applyManifest(store, example(), { clock, keyRing });
  t.same((await store.repos.tenancy.domainsOfOrganization(refs.globex!)).map((d) => d.id), [refs.ops]);
  t.same((await store.repos.automations.automationsOfOrganization(refs.globex!)).map((a) => a.id), [refs['globex-agent']]);
  t.same((await store.repos.tenancy.organizationsOfUser(refs.gina!)).map((o) => o.orgId), [refs.globex]);
});

