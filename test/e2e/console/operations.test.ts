// The operations view in Chromium: its numbers follow a turn as it runs and settles, and fires as they arrive.
import t from 'tap';
import type { Page } from 'playwright-core';
import { buildConsole } from '../../../scripts/build-console.js';
import { bearer, call } from '../../helpers/http.js';
import { crmCredentials } from '../../http/sessions/conversation-fixture.js';
import { startManage } from '../../http/manage/org-manage-fixture.js';
import { chromiumPath, fitsViewport, launch, pageErrors, screenshot, SKIP_REASON } from './browser.js';

const executable = chromiumPath();

/** The number a tile shows, as text. */
const tile = (page: Page, label: string) => page.getByRole('group', { name: label }).getByRole('definition').first().textContent();

async function until(page: Page, label: string, value: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await tile(page, label)) !== value) {
    if (Date.now() > deadline) throw new Error(`${label} never showed ${value} (shows ${await tile(page, label)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

t.test('operations: a running turn appears and leaves, fires are counted, process-wide counts are labelled', { skip: executable ? false : SKIP_REASON }, async (t) => {
  await buildConsole();
  const m = await startManage(t);
  const { c } = m;
  const browser = await launch(executable as string);
  t.teardown(() => browser.close());

  for (const width of [360, 1440, 3840]) {
    // The viewer is in Tokyo: times are shown in their zone (the service's manual clock reads 12:00 UTC).
    const context = await browser.newContext({ viewport: { width, height: 1000 }, timezoneId: 'Asia/Tokyo', locale: 'en-US' });
    const page = await context.newPage();
    const errors = pageErrors(page);
    await page.goto(`${m.url}/console`);
    await page.getByLabel('Email').fill('ada@acme.test');
    await page.getByLabel('Password').fill('ada-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Operations' }).click();
    await page.getByRole('heading', { name: 'Operations' }).waitFor();
    await until(page, 'Running turns', '0');
    t.match(await page.getByText(/^Updated/).textContent(), /Updated Nov 22, 2026, 9:00:\d\d PM/, 'the time in the viewer\'s timezone');
    t.ok(await page.getByRole('heading', { name: /This service process \(all organizations\)/ }).isVisible(), 'process-wide counts say so');

    // A turn whose tool call is held upstream shows as running, then leaves when the upstream answers.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    c.upstream.respond((_request, res) => void held.then(() => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"id":"c-1","tier":"pro"}'); }));
    const opened = await c.open('lookup', 'ada', { message: '{"id": "c-1"}', callerCredentials: crmCredentials() });
    t.equal(opened.status, 202, opened.text);
    await until(page, 'Running turns', '1');
    const before = await page.evaluate<number>('document.querySelector("main").getBoundingClientRect().height');
    await screenshot(page, 'operations');
    t.ok(await fitsViewport(page), `no sideways scrolling at ${width}`);
    release();
    await c.settle();
    await until(page, 'Running turns', '0');
    const after = await page.evaluate<number>('document.querySelector("main").getBoundingClientRect().height');
    t.equal(after, before, 'nothing moves while the numbers change');

    // Two accepted fires in the ten-second window: 0.2 per second.
    const firesBefore = Number(await tile(page, 'Fires per second'));
    for (let i = 0; i < 2; i += 1) {
      const fired = await call(`${m.url}/api/v1/triggers/fire`, { method: 'POST', headers: bearer(c.key('ada')), json: { triggerId: c.refs['new-lead'], input: { id: `c-${width}-${i}` } } });
      t.equal(fired.status, 202, fired.text);
    }
    await c.settle();
    await until(page, 'Fires per second', String(Math.round((firesBefore + 0.2) * 100) / 100));
    c.clock.advance(11_000); // the service's clock is manual here: the fires leave the window
    await until(page, 'Fires per second', '0');
    t.same(errors, [], 'no page errors');
    await context.close();
  }
});
