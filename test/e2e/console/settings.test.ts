// Organization settings in Chromium: an Owner invites, changes a role, adds a domain, enters and rotates a token; a member is told to ask.
import t from 'tap';
import type { Page } from 'playwright-core';
import { buildConsole } from '../../../scripts/build-console.js';
import { startManage } from '../../http/manage/org-manage-fixture.js';
import { chromiumPath, fitsViewport, launch, pageErrors, screenshot, SKIP_REASON, waitUntil } from './browser.js';

const executable = chromiumPath();
const TOKEN = 'conn-token-e2e-41f7c2';
const ROTATED = 'conn-token-rotated-9a3d55';

async function signIn(page: Page, url: string, email: string, password: string): Promise<void> {
  await page.goto(`${url}/console`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sessions' }).waitFor();
}

t.test('settings in Chromium', { skip: executable ? false : SKIP_REASON }, async (t) => {
  await buildConsole();
  const m = await startManage(t);
  const browser = await launch(executable as string);
  t.teardown(() => browser.close());

  t.test('an Owner manages members, domains and connections; a token is never shown again', async (t) => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signIn(page, m.url, 'ada@acme.test', 'ada-password-1');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: /Organization settings/ }).waitFor();
    const members = page.getByRole('list', { name: 'Members' });
    await members.getByText('bob@acme.test').waitFor();

    // Invite: the link is shown once, with a copy button.
    await page.getByLabel('Email').fill('nia@acme.test');
    await page.getByLabel('Name', { exact: true }).fill('Nia New');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = await page.locator('code.secret').textContent();
    t.match(link, /\/console\/activate#token=svi_/, 'the invitation link is shown');
    await members.getByText('nia@acme.test').waitFor();
    t.match(await members.getByRole('listitem').filter({ hasText: 'nia@acme.test' }).textContent(), /Invited/);
    await screenshot(page, 'settings-members');

    // Change Bob's role; the service says so and keeps it.
    await page.getByLabel('Role of bob').selectOption('admin');
    await page.getByText('Bob Operator is now Admin.').waitFor();
    const bob = (await m.as('ada', 'GET', '/org/members')).json.members.find((x: any) => x.email === 'bob@acme.test');
    t.equal(bob.orgRole, 'admin', 'the role change reached the service');

    // Disabling asks first: Escape closes the dialog and gives focus back to the button that opened it.
    const disable = page.getByRole('button', { name: 'Disable Nia New' });
    await disable.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Disable this member?' }).waitFor();
    t.equal(await page.evaluate<string>('document.activeElement.closest("dialog") ? "inside" : "outside"'), 'inside', 'focus moves into the dialog');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate<string>('document.activeElement.closest("dialog") ? "inside" : "outside"'), 'inside', 'Tab stays inside the dialog');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    t.equal(await page.evaluate<string>('document.activeElement.textContent'), 'Disable Nia New', 'focus is back on the opener');

    // Domains.
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Domains' }).click();
    await page.getByLabel('New domain name').fill('Support');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('list', { name: 'Domains' }).getByRole('button', { name: 'Rename Support' }).waitFor();
    t.ok((await m.as('ada', 'GET', '/org/domains')).json.domains.some((d: any) => d.name === 'Support'), 'the domain exists');
    await screenshot(page, 'settings-domains');

    // Connections: enter a token, then rotate it; neither is ever on the page afterwards.
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Connections' }).click();
    await page.getByLabel('Integration ID').fill('crm');
    await page.getByLabel('Domain').selectOption({ label: 'Support' });
    await page.getByLabel('Token').fill(TOKEN);
    await page.getByRole('button', { name: 'Add connection' }).click();
    await page.getByText('Connection to crm added; its token is stored.').waitFor();
    const row = page.getByRole('list', { name: 'Connections' }).getByRole('listitem').filter({ hasText: 'Support' });
    t.match(await row.textContent(), /Token stored/);
    t.equal(await page.getByLabel('Token').inputValue(), '', 'the token field is emptied once sent');
    await row.getByRole('button', { name: /Rotate token/ }).click();
    const dialog = page.getByRole('dialog', { name: 'New token for crm' });
    await dialog.getByLabel('Token').fill(ROTATED);
    await dialog.getByRole('button', { name: 'Save token' }).click();
    await page.getByText('The token of crm was replaced').waitFor();
    t.match(await row.textContent(), /rotated/);
    await screenshot(page, 'settings-connections');
    const html = await page.content();
    const values = await page.evaluate<string>('[...document.querySelectorAll("input")].map((i) => i.value).join("|")');
    t.notOk(html.includes(TOKEN) || html.includes(ROTATED) || values.includes(TOKEN) || values.includes(ROTATED), 'the page holds neither token');
    const listed = await m.as('ada', 'GET', '/org/connections');
    t.equal(listed.json.connections.filter((c: any) => c.rotatedAt !== null).length, 1, 'the service rotated it');
    await page.reload();
    await page.getByRole('list', { name: 'Connections' }).waitFor();
    t.notOk((await page.content()).includes(ROTATED), 'nor after a reload');
    t.same(errors, [], 'no page errors');
  });

  t.test('a member sees a plain "ask an admin" state', async (t) => {
    for (const width of [360, 1440]) {
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      const page = await context.newPage();
      await signIn(page, m.url, 'vic@acme.test', 'vic-password-1');
      await page.goto(`${m.url}/console/settings/connections`);
      await page.getByText('Only an Owner or Admin of Acme').waitFor();
      t.match(await page.getByRole('status').first().textContent(), /Ask one of them/);
      t.equal(await page.getByRole('list', { name: 'Connections' }).count(), 0, 'nothing to manage is shown');
      t.ok(await fitsViewport(page), `no sideways scrolling at ${width}`);
      await screenshot(page, 'settings-viewer');
      await context.close();
    }
  });

  t.test('settings at 360, 1440 and 3840 px: no sideways scrolling, capped width on 4K', async (t) => {
    for (const width of [360, 1440, 3840]) {
      const context = await browser.newContext({ viewport: { width, height: 1000 } });
      const page = await context.newPage();
      await signIn(page, m.url, 'ada@acme.test', 'ada-password-1');
      await page.goto(`${m.url}/console/settings/members`);
      await page.getByRole('list', { name: 'Members' }).waitFor();
      t.ok(await fitsViewport(page), `no sideways scrolling at ${width}`);
      if (width === 3840) {
        const main = await page.evaluate<number>('document.querySelector("main").getBoundingClientRect().width');
        const font = await page.evaluate<number>('parseFloat(getComputedStyle(document.body).fontSize)');
        t.ok(main < 2000, `content width capped (${main} px)`);
        t.ok(font >= 20, `text grows on a 4K screen (${font} px)`);
      }
      await waitUntil(page, 'document.fonts.status === "loaded"');
      await screenshot(page, 'settings-members');
      await context.close();
    }
  });
});
