// The web console in real headless Chromium against the real service: sign in, sessions list, a live session, activation.
import t from 'tap';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { buildConsole } from '../../../scripts/build-console.js';
import { seedDemo } from '../../../runtime/demo.js';
import { loadManifestFile } from '../../../runtime/manifest/load.js';
import { bearer, call } from '../../helpers/http.js';
import { startTestServer } from '../../helpers/server.js';
import { startCutProxy } from './cut-proxy.js';
import { chromiumPath, fitsViewport, launch, pageErrors, screenshot, settledMessages, SKIP_REASON, waitUntil } from './browser.js';

const demoManifest = fileURLToPath(new URL('../../../examples/demo.workspace.json', import.meta.url));
const WIDTHS = [360, 1440];
const executable = chromiumPath();

t.before(() => buildConsole());

t.test('the service serves the console with a strict CSP, immutable hashed assets, and / redirects to /console', async (t) => {
  const server = await startTestServer(t);
  const root = await fetch(`${server.url}/`, { redirect: 'manual' });
  t.equal(root.status, 302);
  t.equal(root.headers.get('location'), '/console');
  const page = await fetch(`${server.url}/console/activate`);
  t.equal(page.status, 200);
  const csp = page.headers.get('content-security-policy') ?? '';
  t.match(csp, /script-src 'self'(;|$)/, 'scripts from this origin only: no inline script');
  t.notMatch(csp, /unsafe-inline|https?:/, 'no inline code and no third-party host');
  const html = await page.text();
  t.notMatch(html, /<script>(?!<)/, 'no inline script in the page');
  const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  const asset = await fetch(`${server.url}${script}`);
  t.equal(asset.status, 200);
  t.match(asset.headers.get('cache-control'), /immutable/);
  t.match(asset.headers.get('content-type'), /javascript/);
  t.equal((await fetch(`${server.url}/console/assets/..%2F..%2Fpackage.json`)).status, 404, 'only hashed asset names are served');
});

t.test('console in Chromium', { skip: executable ? false : SKIP_REASON }, async (t) => {
  const browser: Browser = await launch(executable as string);
  t.teardown(() => browser.close());
  const server = await startTestServer(t);
  const demo = await seedDemo(server.service, loadManifestFile(demoManifest));
  // The start banner names the console and the demo sign-in; the browser signs in with exactly what it prints.
  const printed = new RegExp(`Web console: ${server.url}/console  \\(sign in as (\\S+) / (\\S+)\\)`).exec(demo.banner(server.url));
  t.ok(printed, 'the banner prints the console URL and the demo sign-in');
  const [, email, password] = printed ?? [];

  for (const width of WIDTHS) {
    t.test(`at ${width} px: sign in, see the sessions list, follow a live session while a turn streams`, async (t) => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      t.teardown(() => context.close());
      const page = await context.newPage();
      const errors = pageErrors(page);
      await page.goto(`${server.url}/`);
      await page.getByRole('heading', { name: 'Sign in to Switchyard' }).waitFor();
      await screenshot(page, 'sign-in');
      t.ok(await fitsViewport(page), 'sign-in: no sideways scrolling');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('wrong-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      t.match(await page.getByRole('alert').textContent(), /not correct/, 'a wrong password is said plainly');
      await page.getByLabel('Password').fill(password);
      await page.getByLabel('Password').press('Enter');
      await page.getByRole('heading', { name: 'Sessions' }).waitFor();

      const fired = await call(`${server.url}/api/v1/triggers/fire`, {
        method: 'POST',
        headers: bearer(demo.apiKey),
        json: { triggerId: demo.triggerId, input: { prompt: 'How do I fire a trigger?' } },
      });
      t.equal(fired.status, 202, fired.text);
      const sessions = page.getByRole('list', { name: 'Sessions' }).getByRole('link');
      await sessions.first().waitFor({ timeout: 15_000 });
      t.ok((await sessions.count()) >= 1, 'the fired session appears in the list without a reload');
      await screenshot(page, 'sessions');
      t.ok(await fitsViewport(page), 'sessions: no sideways scrolling');

      // Both subscribers' sessions are listed under their names; the filter narrows to one by name.
      await sessions.nth(1).waitFor({ timeout: 15_000 });
      const list = page.getByRole('list', { name: 'Sessions' });
      await list.getByText('Handbook lookup').first().waitFor();
      await page.getByLabel('Agent or flow').selectOption({ label: 'Handbook lookup (flow)' });
      await waitUntil(page, `![...document.querySelectorAll('ul[aria-label="Sessions"] li')].some((li) => li.textContent.includes('Demo helper'))`);
      t.ok((await list.getByText('Handbook lookup').count()) >= 1, 'the flow filter keeps the flow session');
      await page.getByLabel('Agent or flow').selectOption({ label: 'All' });
      // The demo key is the signed-in person's: the sessions its fire started are theirs.
      await page.getByLabel('Only sessions I started').check();
      await list.getByText('Handbook lookup').first().waitFor();
      t.ok((await list.getByRole('link').count()) >= 2, '"mine" keeps the sessions the person\'s key started');
      await page.getByLabel('Status').selectOption({ label: 'Archived' });
      await page.getByText('No session matches these filters').waitFor();
      await page.getByLabel('Status').selectOption({ label: 'Active' });
      await page.getByLabel('Only sessions I started').uncheck();

      const agentSession = (fired.json.sessions as Array<{ sessionId: string }>)[0].sessionId;
      await page.goto(`${server.url}/console/sessions/${agentSession}`);
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      const messages = page.getByRole('list', { name: 'Messages' }).getByRole('listitem');
      await messages.filter({ hasText: /triggers\/fire/i }).first().waitFor({ timeout: 15_000 });
      const before = await messages.count();

      // A new turn while the page follows the stream: its answer arrives without a reload.
      const appended = await call(`${server.url}/api/v1/agents/sessions/${agentSession}/messages`, {
        method: 'POST',
        headers: bearer(demo.apiKey),
        json: { message: `Second question at ${width} px: how do I fire a trigger?` },
      });
      t.equal(appended.status, 200, appended.text);
      await messages.filter({ hasText: `Second question at ${width} px` }).waitFor({ timeout: 15_000 });
      await settledMessages(page, before + 2, true);
      t.ok((await messages.count()) >= before + 2, 'the new question and its streamed answer are shown live');
      await screenshot(page, 'session');
      t.ok(await fitsViewport(page), 'session: no sideways scrolling');

      await page.goto(`${server.url}/console/no-such-page`);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      await page.getByRole('link', { name: 'Go to the sessions' }).click();
      await page.getByRole('heading', { name: 'Sessions' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in to Switchyard' }).waitFor();
      t.same(errors, [], 'no CSP violation or script error on any page');
    });
  }

  t.test('keyboard only: sign in and open a session without a pointer', async (t) => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await page.goto(`${server.url}/console`);
    await page.getByRole('heading', { name: 'Sign in to Switchyard' }).waitFor();
    t.equal(await page.title(), 'Sign in · Switchyard');
    await page.keyboard.press('Tab');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    await page.getByRole('list', { name: 'Sessions' }).getByRole('link').first().waitFor({ timeout: 15_000 });
    let reached = false;
    for (let tab = 0; tab < 30 && !reached; tab++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate<boolean>(`document.activeElement?.closest('ul[aria-label="Sessions"]') != null`);
    }
    t.ok(reached, 'Tab reaches the first session');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Messages' }).waitFor();
    // The title names the session once its record has loaded, which may come after the Messages heading renders.
    await waitUntil(page, `/^Session …[0-9a-f]{8} · Switchyard$/.test(document.title)`).catch(() => undefined);
    t.match(await page.title(), /^Session …[0-9a-f]{8} · Switchyard$/, 'the session page names itself');
  });

  t.test('after a network drop the session page reconnects with Last-Event-ID and shows the missed turn once', async (t) => {
    const proxy = await startCutProxy(server.url);
    t.teardown(() => proxy.close());
    const fired = await call(`${server.url}/api/v1/triggers/fire`, { method: 'POST', headers: bearer(demo.apiKey), json: { triggerId: demo.triggerId, input: { prompt: 'First' } } });
    const sessionId = fired.json.sessions[0].sessionId as string;
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await page.goto(`${proxy.url}/console`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    await page.goto(`${proxy.url}/console/sessions/${sessionId}`);
    const messages = page.getByRole('list', { name: 'Messages' }).getByRole('listitem');
    await messages.nth(1).waitFor({ timeout: 15_000 });
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();

    proxy.cut();
    await page.getByRole('status').filter({ hasText: 'Reconnecting' }).waitFor();
    // While the page is cut off, a whole turn runs; the resumed stream (replay, then snapshot-driven reread) shows it.
    const appended = await call(`${server.url}/api/v1/agents/sessions/${sessionId}/messages`, { method: 'POST', headers: bearer(demo.apiKey), json: { message: 'Asked during the drop' } });
    t.equal(appended.status, 200, appended.text);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor({ timeout: 15_000 });
    await messages.filter({ hasText: 'Asked during the drop' }).waitFor({ timeout: 15_000 });
    await settledMessages(page, 4);
    t.ok(proxy.lastEventIds.some((id) => Number(id) > 0), `the browser reconnected with Last-Event-ID (${proxy.lastEventIds.join(', ')})`);
    const view = await call(`${server.url}/api/v1/agents/sessions/${sessionId}`, { headers: bearer(demo.apiKey) });
    t.equal(await messages.count(), view.json.messages.length, 'every stored message once: nothing lost, nothing repeated');
    t.equal(await messages.filter({ hasText: 'Asked during the drop' }).count(), 1);
  });

  t.test('an invited owner activates through the link, and a used link says so plainly', async (t) => {
    const invite = await call(`${server.url}/api/v1/org/members`, {
      method: 'POST',
      headers: bearer(demo.apiKey),
      json: { email: 'new.owner@switchyard.local', name: 'New Owner', orgRole: 'owner' },
    });
    t.equal(invite.status, 201, invite.text);
    const link = invite.json.invitationLink as string;
    t.match(link, /\/console\/activate#token=svi_/);

    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const errors = pageErrors(page);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Activate your account' }).waitFor();
    t.notMatch(page.url(), /token=/, 'the secret leaves the address bar');
    await screenshot(page, 'activate');
    t.ok(await fitsViewport(page), 'activate: no sideways scrolling');
    await page.getByLabel('New password').fill('owner-password-1');
    await page.getByLabel('Repeat the password').fill('owner-password-1');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    t.match(await page.getByRole('banner').textContent(), /New Owner/, 'signed in as the new owner');

    await page.goto(link);
    await page.getByLabel('New password').fill('owner-password-2');
    await page.getByLabel('Repeat the password').fill('owner-password-2');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'This invitation link cannot be used' }).waitFor();
    t.match(await page.getByRole('alert').textContent(), /already used, has expired/);
    await screenshot(page, 'activate-used');
    t.same(errors, [], 'no CSP violation or script error');
    t.ok(await fitsViewport(page), 'activate-used: no sideways scrolling');
  });
});
