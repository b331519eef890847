// A person in two organizations, keyboard only: signs in, picks one by name, navigates, and switches from the header.
import t from 'tap';
import type { Page } from 'playwright-core';
import { buildConsole } from '../../../scripts/build-console.js';
import { seedUser } from '../../helpers/fixtures.js';
import { startTestServer } from '../../helpers/server.js';
import { chromiumPath, fitsViewport, launch, pageErrors, screenshot, SKIP_REASON } from './browser.js';

const executable = chromiumPath();

/** What has keyboard focus, as a person would name it: its accessible label or its text. */
const focused = (page: Page) => page.evaluate<string>(`(() => { const el = document.activeElement; return (el.getAttribute('aria-label') || el.labels?.[0]?.textContent || el.textContent || el.tagName).trim(); })()`);

t.test('keyboard-only: sign in, pick an organization by name, navigate, switch from the header', { skip: executable ? false : SKIP_REASON }, async (t) => {
  await buildConsole();
  const server = await startTestServer(t);
  const person = await seedUser(server.service.store, { email: 'multi@example.test', orgName: 'Alpha Works', orgRole: 'owner' });
  const other = await seedUser(server.service.store, { email: 'other@example.test', orgName: 'Beta Labs' });
  await server.service.store.writer.submit(async (tx) => (await tx.repos.tenancy.setOrgRole(other.orgId, person.userId, 'member', 0)));
  const browser = await launch(executable as string);
  t.teardown(() => browser.close());

  for (const width of [360, 1440, 3840]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    const errors = pageErrors(page);
    await page.goto(`${server.url}/console`);
    await page.getByRole('heading', { name: 'Sign in to Switchyard' }).waitFor();
    await page.keyboard.press('Tab');
    t.equal(await focused(page), 'Email', 'Tab reaches the email first');
    await page.keyboard.type(person.email);
    await page.keyboard.press('Tab');
    t.equal(await focused(page), 'Password');
    await page.keyboard.type(person.password);
    await page.keyboard.press('Enter');

    await page.getByRole('heading', { name: 'Choose an organization' }).waitFor();
    t.ok(await page.getByRole('radio', { name: /Alpha Works/ }).isVisible(), 'organizations are offered by name, with the role');
    t.match(await page.getByRole('group').textContent(), /Beta Labs\s*Member/);
    t.equal(await page.getByLabel('Organization ID').count(), 0, 'nobody is asked for an ID');
    await screenshot(page, 'organization-choice');
    t.ok(await fitsViewport(page), `organization choice: no sideways scrolling at ${width}`);
    // Tab into the radio group, arrow to the second organization, Enter submits.
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowDown');
    t.match(await focused(page), /Beta Labs/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    await page.getByText('No sessions yet').waitFor();
    t.equal(await page.evaluate<string>(`fetch('/api/v1/me').then((r) => r.json()).then((me) => me.orgId)`), other.orgId, 'signed in to the chosen organization');

    // Navigation by keyboard: Tab to the Operations link in the header and follow it.
    await page.getByRole('link', { name: 'Switchyard' }).focus();
    for (let i = 0; i < 12 && (await focused(page)) !== 'Operations'; i += 1) await page.keyboard.press('Tab');
    t.equal(await focused(page), 'Operations', 'the header links are in reading order');
    const outline = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
    t.equal(outline, 'solid', 'focus is visible');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Operations' }).waitFor();
    await page.getByText('Only an Owner or Admin of this organization').waitFor();
    t.ok(await fitsViewport(page), `operations (member): no sideways scrolling at ${width}`);

    // The header switcher moves the console to the other organization.
    const switcher = page.getByRole('combobox', { name: 'Organization' });
    await switcher.focus();
    await switcher.selectOption({ label: 'Alpha Works (Owner)' });
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    await page.getByRole('combobox', { name: 'Organization' }).waitFor();
    t.equal(await page.getByRole('combobox', { name: 'Organization' }).inputValue(), person.orgId, 'the header names the organization now in use');
    t.equal(await page.evaluate<string>(`fetch('/api/v1/me').then((r) => r.json()).then((me) => me.orgId)`), person.orgId, 'switched');
    await screenshot(page, 'sessions-switched');
    t.ok(await fitsViewport(page), `header with the switcher: no sideways scrolling at ${width}`);
    // The member's refused operations read (403) is logged by the browser; the page shows it as the ask-an-admin state.
    t.same(errors.filter((e) => !/status of 403/.test(e)), [], 'no page errors');
    await context.close();
  }
});
