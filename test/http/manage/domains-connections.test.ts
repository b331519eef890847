// Domains and connections over HTTP (issue 13 item 6): Owner/Admin, unique names, secrets sealed and never returned.
import t from 'tap';
import { newId } from '../../../runtime/ids.js';
import { openSecret, sealedSecretAad } from '../../../runtime/vault/sealed-secret.js';
import { startManage } from './org-manage-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

t.test('domains: create (creator owns it), rename, unique names, 403 inside, 404 across', async (t) => {
  const m = await startManage(t);
  const created = await m.as('eve', 'POST', '/org/domains', { name: 'Support' });
  t.equal(created.status, 201);
  const domainId: string = created.json.domain.domainId;
  t.equal(await m.c.count(`SELECT COUNT(*) AS n FROM domain_memberships WHERE domain_id = ? AND role = 'owner'`, domainId), 1, 'its creator owns it');
  t.equal((await m.as('ada', 'POST', '/org/domains', { name: 'support' })).status, 409, 'names are unique, case-insensitive');
  const renamed = await m.as('ada', 'PATCH', `/org/domains/${domainId}`, { name: 'Customer care' });
  t.equal(renamed.status, 200);
  t.equal(renamed.json.domain.name, 'Customer care');
  t.equal((await m.as('ada', 'PATCH', `/org/domains/${domainId}`, { name: 'Sales' })).status, 409);
  const listed = await m.as('ada', 'GET', '/org/domains');
  t.same(listed.json.domains.map((d: any) => d.name), ['Sales', 'Customer care']);
  t.equal((await m.as('bob', 'POST', '/org/domains', { name: 'Mine' })).status, 403);
  const foreign = await m.as('gina', 'PATCH', `/org/domains/${domainId}`, { name: 'Taken' });
  const unknown = await m.as('gina', 'PATCH', `/org/domains/${newId()}`, { name: 'Taken' });
  t.equal(foreign.status, 404);
  t.equal(foreign.text, unknown.text, 'another organization\'s domain: the same 404 as an unknown one');
  for (const body of [{}, { name: '' }, { name: 'A', approvalPolicy: {} }]) t.equal((await m.as('ada', 'POST', '/org/domains', body)).status, 400, JSON.stringify(body));
});

// On PostgreSQL the creates run in concurrent transactions and no unique key backs the name: the organization's row lock orders them.
t.test('concurrent creates of one domain name: one 201, the rest 409 CONFLICT, one domain', async (t) => {
  const m = await startManage(t);
  const answers = await Promise.all(['Racing', 'racing', 'RACING', 'Racing'].map((name) => m.as('ada', 'POST', '/org/domains', { name })));
  t.same(answers.map((a) => a.status).sort(), [201, 409, 409, 409]);
  t.ok(answers.filter((a) => a.status === 409).every((a) => a.json.error.code === 'CONFLICT'));
  t.equal((await m.as('ada', 'GET', '/org/domains')).json.domains.filter((d: { name: string }) => d.name.toLowerCase() === 'racing').length, 1);
});

t.test('connections: add, rotate, remove; material sealed with the vault and never in an answer or a log', async (t) => {
  const m = await startManage(t);
  const keyRing = m.c.server.service.services.keyRing;
  const db = sqlReader(m.c.server.service);
  const SECRET = 'conn-secret-7c2e19';
  const added = await m.as('ada', 'POST', '/org/connections', { integrationId: 'crm', domainId: m.c.refs.sales, secret: { token: SECRET } });
  t.equal(added.status, 201);
  t.match(added.json.connection, { integrationId: 'crm', domainId: m.c.refs.sales, hasSecret: true, rotatedAt: null });
  t.notOk(added.text.includes(SECRET), 'the answer holds no material');
  const id: string = added.json.connection.connectionId;
  const sealed = async () => ((await db.get('SELECT secret_sealed FROM connections WHERE id = ?', id)) as { secret_sealed: Buffer }).secret_sealed;
  t.notOk((await sealed()).toString('latin1').includes(SECRET), 'not in clear in the DB');
  t.same(openSecret(keyRing, (await sealed()), sealedSecretAad.connection(m.c.refs.acme!, id)), { token: SECRET }, 'sealed as apply seals it');

  const ROTATED = 'conn-secret-rotated-5d1';
  m.c.clock.advance(1000);
  const rotated = await m.as('eve', 'POST', `/org/connections/${id}/rotate`, { secret: { fields: { apiKey: ROTATED } } });
  t.equal(rotated.status, 200);
  t.equal(rotated.json.connection.rotatedAt, new Date(m.c.clock.now()).toISOString());
  t.same(openSecret(keyRing, (await sealed()), sealedSecretAad.connection(m.c.refs.acme!, id)), { fields: { apiKey: ROTATED } });
  const listed = await m.as('ada', 'GET', '/org/connections');
  t.equal(listed.json.connections.length, 2, 'the manifest\'s connection and the new one');
  t.notOk(listed.text.includes(ROTATED) || listed.text.includes('org-token-123'), 'a list holds no material either');
  const logs = m.c.server.logs.join('');
  t.notOk(logs.includes(SECRET) || logs.includes(ROTATED), 'never in the logs');

  t.equal((await m.as('bob', 'POST', `/org/connections/${id}/rotate`, { secret: { token: 'x' } })).status, 403);
  const foreign = await m.as('gina', 'DELETE', `/org/connections/${id}`);
  const unknown = await m.as('gina', 'DELETE', `/org/connections/${newId()}`);
  t.equal(foreign.status, 404);
  t.equal(foreign.text, unknown.text, 'another organization\'s connection: the same 404');
  for (const body of [{ integrationId: 'crm', secret: {} }, { integrationId: 'crm', secret: { token: 'a' }, extra: true }, { integrationId: 'crm' }, { integrationId: 'nope', secret: { token: 'a' } }]) {
    const bad = await m.as('ada', 'POST', '/org/connections', body);
    t.equal(bad.status, 400, JSON.stringify(body));
    t.equal(bad.json.error.code, 'VALIDATION');
  }
  t.equal((await m.as('ada', 'POST', '/org/connections', { integrationId: 'crm', domainId: m.c.refs.ops, secret: { token: 'a' } })).status, 404, 'another organization\'s domain');
  t.equal((await m.as('ada', 'DELETE', `/org/connections/${id}`)).status, 204);
  t.equal((await m.as('ada', 'DELETE', `/org/connections/${id}`)).status, 404, 'gone');
  t.equal(await m.c.count('SELECT COUNT(*) AS n FROM connections WHERE id = ?', id), 0);
});
