// The console sign-in of a person in several organizations: they name one, and a wrong one is refused plainly.
import t from 'tap';
import { newId } from '../../../runtime/ids.js';
import { buildConsole } from '../../../scripts/build-console.js';
import { seedUser } from '../../helpers/fixtures.js';
import { startTestServer } from '../../helpers/server.js';
import { chromiumPath, fitsViewport, launch, screenshot, SKIP_REASON } from './browser.js';

const executable = chromiumPath();

t.test('a member of two organizations chooses one at sign-in and lands on its (empty) sessions list', { skip: executable ? false : SKIP_REASON }, async (t) => {
  await buildConsole();
  const server = await startTestServer(t);
  const person = await seedUser(server.service.store, { email: 'multi@example.test' });
  const other = await seedUser(server.service.store, { email: 'other@example.test' });
  server.service.store.transaction(() => server.service.store.repos.tenancy.setOrgRole(other.orgId, person.userId, 'member', 0));

  const browser = await launch(executable as string);
  t.teardown(() => browser.close());
  const page = await (await browser.newContext({ viewport: { width: 360, height: 800 } })).newPage();
  await page.goto(`${server.url}/console`);
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Organization ID').waitFor();
  t.match(await page.getByText('You belong to several organizations').textContent(), /name the one to work in/);
  await screenshot(page, 'organization-choice');
  t.ok(await fitsViewport(page), 'organization choice: no sideways scrolling');

  await page.getByLabel('Organization ID').fill(newId());
  await page.getByRole('button', { name: 'Continue' }).click();
  t.match(await page.getByRole('alert').textContent(), /not correct/, 'an organization the person is not in is refused');

  await page.getByLabel('Organization ID').fill(other.orgId);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Sessions' }).waitFor();
  await page.getByText('No sessions yet').waitFor();
  const signedInto = await page.evaluate<string>(`fetch('/api/v1/me').then((r) => r.json()).then((me) => me.orgId)`);
  t.equal(signedInto, other.orgId, 'signed in to the chosen organization; its empty list says what to do');
  await screenshot(page, 'sessions-empty');
});
