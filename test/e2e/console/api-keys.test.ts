// API keys under Triggers, in real headless Chromium: create (secret shown once, copied), prove it works, list, revoke.
import t from 'tap';
import type { Browser } from 'playwright-core';
import { buildConsole } from '../../../scripts/build-console.js';
import { bearer, call } from '../../helpers/http.js';
import { startTriggerServer } from '../../http/triggers-admin/trigger-fixture.js';
import { chromiumPath, launch, pageErrors, screenshot, SKIP_REASON } from './browser.js';
import { bothWidths, signInToTriggers } from './trigger-steps.js';

const executable = chromiumPath();

t.test('API keys in the console', { skip: executable ? false : SKIP_REASON }, async (t) => {
  await buildConsole();
  const f = await startTriggerServer(t);
  const { url } = f.server;
  const browser: Browser = await launch(executable as string);
  t.teardown(() => browser.close());

  t.test('create: the secret is shown once, copied to the clipboard, and works; revoked, it answers 404', async (t) => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    t.teardown(() => context.close());
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInToTriggers(page, url);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    t.equal(await page.title(), 'API keys · Switchyard');

    await page.getByRole('button', { name: 'Create key' }).click();
    t.match(await page.getByRole('alert').textContent(), /Name the key/, 'a nameless key is explained, not sent');
    await page.getByLabel('Key name').fill('CI script');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new key “CI script”' });
    await dialog.waitFor();
    const secret = await dialog.getByLabel('Secret').inputValue();
    t.match(secret, /^sv_/, 'the secret is shown');
    await screenshot(page, 'api-key-created');
    await dialog.getByRole('button', { name: 'Copy' }).click();
    await dialog.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).waitFor();
    t.equal(await page.evaluate<string>('navigator.clipboard.readText()'), secret, 'the clipboard holds the secret');

    const me = await call(`${url}/api/v1/me`, { headers: bearer(secret) });
    t.equal(me.status, 200, 'the copied key works on the API');
    t.equal(me.json.email, 'ada@acme.test', 'acting as its creator');

    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });
    t.notOk((await page.textContent('body'))?.includes(secret), 'once the dialog is closed the secret is nowhere on the page');
    const listed = page.getByRole('list', { name: 'API keys' }).getByRole('listitem').filter({ hasText: 'CI script' });
    t.match(await listed.textContent(), new RegExp(`sv_…${secret.slice(-4)}.*Created`), 'listed by its hint');
    await page.reload();
    await listed.waitFor();
    t.notOk((await page.textContent('body'))?.includes(secret), 'nor after a reload');
    t.match(await listed.textContent(), /Last used/, 'the call above shows as its last use');
    await bothWidths(t, page, 'api-keys');
    await page.setViewportSize({ width: 1440, height: 900 });

    await listed.getByRole('button', { name: 'Revoke CI script' }).click();
    t.match(await listed.getByRole('alert').textContent(), /Anything using it stops at once/);
    await listed.getByRole('button', { name: 'Revoke for good' }).click();
    await listed.getByText(/^Revoked/).waitFor();
    const refused = await call(`${url}/api/v1/me`, { headers: bearer(secret) });
    t.equal(refused.status, 404, 'the revoked key answers the uniform 404');
    t.equal(refused.json.error.code, 'NOT_FOUND');
    t.same(errors, [], 'no CSP violation or script error');
  });

  t.test('without the Clipboard API the secret is selected for the person to copy', async (t) => {
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    // As on a page served over plain http from another host: no navigator.clipboard at all.
    await page.addInitScript('Object.defineProperty(Navigator.prototype, "clipboard", { get: () => undefined })');
    await signInToTriggers(page, url);
    await page.goto(`${url}/console/triggers/api-keys`);
    await page.getByLabel('Key name').fill('Laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new key “Laptop”' });
    const secret = await dialog.getByLabel('Secret').inputValue();
    await dialog.getByRole('button', { name: 'Copy' }).click();
    await dialog.getByRole('status').filter({ hasText: 'press Ctrl+C' }).waitFor();
    const selected = await page.evaluate<string>('document.activeElement.value.slice(document.activeElement.selectionStart, document.activeElement.selectionEnd)');
    t.equal(selected, secret, 'the whole secret is selected in its field');
    await screenshot(page, 'api-key-select');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    t.notOk((await page.textContent('body'))?.includes(secret), 'Escape closes it for good too');
    t.equal((await call(`${url}/api/v1/me`, { headers: bearer(secret) })).status, 200);
  });
});
