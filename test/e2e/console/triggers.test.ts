// Triggers in the console, in real headless Chromium against the real service: create a schedule trigger from its
// next-runs preview, see a tick's Run history (per-subscriber outcomes, codes, session links), pause/resume, delete.
import t from 'tap';
import type { Browser } from 'playwright-core';
import { buildConsole } from '../../../scripts/build-console.js';
import { Webhook } from 'standardwebhooks';
import { bearer, call } from '../../helpers/http.js';
import { startTriggerServer, type TriggerServer } from '../../http/triggers-admin/trigger-fixture.js';
import { chromiumPath, launch, pageErrors, screenshot, SKIP_REASON } from './browser.js';
import { bothWidths, signInToTriggers } from './trigger-steps.js';

const executable = chromiumPath();
const MINUTE = 60_000;

t.test('schedule trigger in the console', { skip: executable ? false : SKIP_REASON }, async (t) => {
  await buildConsole();
  const f: TriggerServer = await startTriggerServer(t);
  const { url } = f.server;
  const adaKey = f.refs['ada-key']!;
  const browser: Browser = await launch(executable as string);
  t.teardown(() => browser.close());
  // A viewer in Paris with a 24-hour clock: the preview shows the trigger's zone and the viewer's.
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, timezoneId: 'Europe/Paris', locale: 'en-GB' });
  t.teardown(() => context.close());
  const page = await context.newPage();
  const errors = pageErrors(page);

  await signInToTriggers(page, url);
  const list = page.getByRole('list', { name: 'Triggers' });
  await list.getByRole('link', { name: 'Nightly enrich' }).waitFor();
  t.match(await list.getByRole('listitem').filter({ hasText: 'Nightly enrich' }).textContent(), /Schedule.*Active.*Sales.*0 2 \* \* \*.*Europe\/Paris/, 'the manifest\'s schedule is listed with its cron and zone');
  t.match(await list.getByRole('listitem').filter({ hasText: 'Paused trigger' }).textContent(), /Paused/);
  await bothWidths(t, page, 'triggers');
  await page.setViewportSize({ width: 1440, height: 900 });

  t.test('the form explains a bad cron or zone before submit, and previews the next runs in both zones', async (t) => {
    await page.getByRole('link', { name: 'New trigger' }).click();
    await page.getByRole('heading', { name: 'New trigger' }).waitFor();
    await page.getByLabel('Name').fill('Every five minutes');
    await page.getByLabel('Cron pattern').fill('61 * * * *');
    t.match(await page.getByRole('alert').textContent(), /Not a valid cron pattern/);
    await page.getByLabel('Cron pattern').fill('30 9 * * *');
    await page.getByLabel('Time zone').fill('Mars/Olympus');
    t.match(await page.getByRole('alert').textContent(), /"Mars\/Olympus" is not an IANA time zone/);
    await page.getByRole('button', { name: 'Create trigger' }).click();
    t.match(await page.getByRole('alert').first().textContent(), /not an IANA time zone/, 'submit is refused by the form, not sent');
    t.equal((await call(`${url}/api/v1/triggers?type=schedule`, { headers: bearer(adaKey) })).json.triggers.length, 1, 'nothing was created');

    await page.getByLabel('Time zone').fill('America/New_York');
    const runs = page.getByRole('list', { name: 'Next runs' }).getByRole('listitem');
    await runs.first().waitFor();
    t.equal(await runs.count(), 5, 'five next runs');
    // 09:30 in New York is 15:30 in Paris (both on standard time, or both on summer time, all year but a few weeks).
    t.match(await runs.first().textContent(), /09:30.*your time: .*15:30/, 'each run in the trigger\'s zone and the viewer\'s');
  });

  let triggerId = '';
  t.test('create it on a five-minute UTC schedule with three subscribers', async (t) => {
    await page.getByLabel('Cron pattern').fill('*/5 * * * *');
    await page.getByLabel('Time zone').fill('UTC');
    t.match(await page.getByRole('list', { name: 'Next runs' }).getByRole('listitem').first().textContent(), /:[0-5][05] UTC/);
    await page.getByLabel('Tier upgrader').check();
    await page.getByLabel('Enrich contact').check();
    await page.getByLabel('Never published').check();
    await page.getByLabel('Input (optional)').fill('{"id": "c-7"');
    await page.getByRole('alert').filter({ hasText: 'not valid JSON' }).first().waitFor();
    await page.getByLabel('Input (optional)').fill('{"id": "c-7"}');
    await screenshot(page, 'trigger-new');
    await page.getByRole('button', { name: 'Create trigger' }).click();
    await page.getByRole('heading', { name: 'Every five minutes' }).waitFor();
    triggerId = page.url().split('/').pop()!;
    const stored = await call(`${url}/api/v1/triggers/${triggerId}`, { headers: bearer(adaKey) });
    t.equal(stored.status, 200);
    t.match(stored.json.trigger.config, { cron: '*/5 * * * *', timezone: 'UTC', input: { id: 'c-7' }, nextRunAt: '2026-11-22T12:05:00.000Z' });
    t.same(stored.json.subscribers.map((s: any) => s.automationId), [f.refs.upgrader, f.refs.enrich, f.refs.drafty], 'in the order ticked');
    t.match(await page.getByRole('heading', { name: 'Subscribers' }).locator('..').textContent(), /Never published.*not published: firings skip it/);
    await page.getByText('No firings yet').waitFor();
  });

  t.test('a tick fires it: the Run history shows what the service recorded, per subscriber, with session links', async (t) => {
    f.clock.advance(5 * MINUTE);
    await f.settle();
    const recorded = await call(`${url}/api/v1/triggers/${triggerId}/runs`, { headers: bearer(adaKey) });
    t.equal(recorded.json.runs.length, 1, 'the service recorded one firing');
    const [run] = recorded.json.runs;
    const shown = page.getByRole('list', { name: 'Runs' }).getByRole('listitem').filter({ has: page.getByRole('list', { name: 'Subscriber results' }) });
    await shown.first().waitFor({ timeout: 15_000 });
    t.equal(await shown.count(), 1, 'the open page picked up the firing by itself');
    t.match(await shown.first().textContent(), new RegExp(`Schedule.*${run.outcome}`));
    t.equal(run.outcome, 'partial');
    const results = shown.first().getByRole('list', { name: 'Subscriber results' }).getByRole('listitem');
    t.equal(await results.count(), 3);
    t.match(await results.nth(0).textContent(), /Tier upgrader.*failed.*CALLER_CREDENTIALS_REQUIRED/);
    t.match(await results.nth(1).textContent(), /Enrich contact.*\(flow\).*started/);
    t.match(await results.nth(2).textContent(), /Never published.*skipped.*NOT_PUBLISHED/);
    const started = run.subscribers.find((s: any) => s.status === 'started');
    t.equal(await results.nth(1).getByRole('link', { name: 'Open session' }).getAttribute('href'), `/console/sessions/${started.sessionId}`);
    t.equal(await results.nth(0).getByRole('link').count(), 0, 'no session for a refused subscriber');
    // 12:10Z, 13:10 in Paris: the page rereads the trigger when a firing arrives.
    await page.getByText(/^Next run$/).locator('xpath=following-sibling::dd[1]').filter({ hasText: '13:10' }).waitFor();
    await bothWidths(t, page, 'trigger-runs');
    await page.setViewportSize({ width: 1440, height: 900 });

    await results.nth(1).getByRole('link', { name: 'Open session' }).click();
    await page.getByRole('heading', { name: 'Messages' }).waitFor();
    t.equal(new URL(page.url()).pathname, `/console/sessions/${started.sessionId}`, 'the link opens the session it started');
    await page.goBack();
    await page.getByRole('heading', { name: 'Run history' }).waitFor();
  });

  t.test('pause and resume change the trigger on the service', async (t) => {
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    t.match(await page.getByText('None while paused').textContent(), /paused/);
    t.equal((await call(`${url}/api/v1/triggers/${triggerId}`, { headers: bearer(adaKey) })).json.trigger.active, false);
    f.clock.advance(10 * MINUTE);
    await f.settle();
    t.equal((await call(`${url}/api/v1/triggers/${triggerId}/runs`, { headers: bearer(adaKey) })).json.runs.length, 1, 'paused: no tick');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    const resumed = await call(`${url}/api/v1/triggers/${triggerId}`, { headers: bearer(adaKey) });
    t.equal(resumed.json.trigger.active, true);
    t.equal(resumed.json.trigger.config.nextRunAt, '2026-11-22T12:20:00.000Z', 'armed for the next slot from now');
    t.match(await page.getByText(/^Next run$/).locator('xpath=following-sibling::dd[1]').textContent(), /22 Nov 2026, 13:20/, 'shown in the viewer\'s zone');
  });

  t.test('a supplied but unused credential shows in an API trigger\'s Run history', async (t) => {
    const fired = await call(`${url}/api/v1/triggers/fire`, {
      method: 'POST',
      headers: bearer(adaKey),
      json: { triggerId: f.refs['new-lead'], input: { id: 'c-1' }, callerCredentials: { integrations: { crm: { token: 'caller-token' }, unused: { token: 'u' } } } },
    });
    t.equal(fired.status, 202, fired.text);
    await page.goto(`${url}/console/triggers/${f.refs['new-lead']}`);
    const run = page.getByRole('list', { name: 'Runs' }).getByRole('listitem').filter({ hasText: 'Supplied but unused' });
    await run.waitFor({ timeout: 15_000 });
    t.match(await run.textContent(), /API call.*Supplied but unused credentials: unused/);
    t.notMatch(await page.textContent('body'), /caller-token/, 'never the material');
  });

  t.test('the service\'s refusal is shown when a stale form disagrees with it', async (t) => {
    await page.goto(`${url}/console/triggers/new`);
    await page.getByLabel('API (fired with a key)').check();
    await page.getByLabel('Name').fill('Stale subscriber');
    await page.getByLabel('Contact lookup').check();
    const archived = await call(`${url}/api/v1/authoring/automations/${f.refs.lookup}/archive`, { method: 'POST', headers: bearer(adaKey) });
    t.equal(archived.status, 200, archived.text);
    await page.getByRole('button', { name: 'Create trigger' }).click();
    await page.getByText('The service refused the trigger').waitFor();
    t.match(await page.getByRole('alert').textContent(), /archived/i, 'the 409 says why');
    await call(`${url}/api/v1/authoring/automations/${f.refs.lookup}/unarchive`, { method: 'POST', headers: bearer(adaKey) });
  });

  t.test('delete asks first, then removes the trigger and its Run history', async (t) => {
    await page.goto(`${url}/console/triggers/${triggerId}`);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    t.match(await page.getByRole('alert').textContent(), /Delete “Every five minutes” with its Run history\?/);
    await page.getByRole('button', { name: 'Keep it' }).click();
    t.equal((await call(`${url}/api/v1/triggers/${triggerId}`, { headers: bearer(adaKey) })).status, 200, 'kept');
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Delete for good' }).click();
    await page.getByRole('heading', { name: 'Triggers' }).waitFor();
    await page.getByRole('list', { name: 'Triggers' }).getByRole('link', { name: 'Nightly enrich' }).waitFor();
    t.equal(await page.getByRole('link', { name: 'Every five minutes' }).count(), 0, 'gone from the list');
    t.equal((await call(`${url}/api/v1/triggers/${triggerId}`, { headers: bearer(adaKey) })).status, 404, 'gone from the service');
    t.equal((await call(`${url}/api/v1/triggers/${triggerId}/runs`, { headers: bearer(adaKey) })).status, 404, 'with its Run history');
  });

  t.test('an event trigger with a filter: the minted endpoint secret is shown once, and a delivery signed with it fires', async (t) => {
    await page.goto(`${url}/console/triggers/new`);
    await page.getByLabel('Event (from an integration)').check();
    await page.getByLabel('Name').fill('Big accounts');
    await page.getByLabel('Enrich contact').check();
    await page.getByLabel('Source').selectOption('crm');
    t.same(await page.getByLabel('Event type').locator('option').allTextContents(), ['Choose an event', 'contact.created'], 'only the verifiable catalog events');
    await page.getByLabel('Event type').selectOption('contact.created');
    await page.getByLabel('Connection').selectOption({ index: 1 });
    await page.getByLabel('Field').selectOption('contact.seats');
    await page.getByLabel('Operator').selectOption('>');
    await page.getByLabel('Value').fill('50');
    await page.getByRole('button', { name: 'Create trigger' }).click();
    const dialog = page.getByRole('dialog', { name: 'Endpoint secret' });
    await dialog.waitFor();
    const secret = await dialog.getByLabel('Secret').inputValue();
    t.match(secret, /^whsec_/);
    const deliveryUrl = (await dialog.locator('code').textContent()) ?? '';
    t.match(deliveryUrl, new RegExp(`^${url}/api/v1/events/`));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('heading', { name: 'Big accounts' }).waitFor();
    // A plain substring check: the secret is base64 and may hold regex syntax ("++" made `new RegExp` throw).
    t.notOk((await page.textContent('body'))?.includes(secret), 'the secret is gone with the dialog');
    t.match(await page.getByText('contact.seats > 50').textContent(), /contact\.seats > 50/, 'the filter as stored');

    const body = JSON.stringify({ type: 'contact.created', timestamp: '2026-11-22T12:00:00Z', data: { id: 'c-9', contact: { id: 'c-9', seats: 120 } } });
    const at = new Date(f.clock.now());
    const delivered = await call(deliveryUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_console_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign('msg_console_1', at, body) },
      body,
    });
    t.equal(delivered.status, 202, delivered.text);
    const run = page.getByRole('list', { name: 'Runs' }).getByRole('listitem').filter({ hasText: 'Event' }).first();
    await run.waitFor({ timeout: 15_000 });
    t.match(await run.textContent(), /Event.*succeeded.*Enrich contact.*started/);
  });

  t.test('Run history pages back with the API\'s cursor and keeps older pages while new firings arrive on top', async (t) => {
    const fire = async () => {
      const fired = await call(`${url}/api/v1/triggers/fire`, { method: 'POST', headers: bearer(adaKey), json: { triggerId: f.refs.empty } });
      t.equal(fired.status, 202);
      f.clock.advance(1_000);
    };
    for (let i = 0; i < 21; i++) await fire();
    await page.goto(`${url}/console/triggers/${f.refs.empty}`);
    const runs = page.getByRole('list', { name: 'Runs' }).locator(':scope > li');
    await runs.first().waitFor();
    t.equal(await runs.count(), 20, 'a first page of 20');
    t.match(await runs.first().textContent(), /skipped.*No subscriber: nothing started/, 'a firing nobody listens to');
    await page.getByRole('button', { name: 'Show older runs' }).click();
    await runs.nth(20).waitFor();
    t.equal(await runs.count(), 21);
    t.equal(await page.getByRole('button', { name: 'Show older runs' }).count(), 0, 'the last page: no more to show');
    await fire();
    await runs.nth(21).waitFor({ timeout: 15_000 });
    t.equal(await runs.count(), 22, 'the new firing joins on top; the older page stays');
  });

  t.test('no CSP violation or script error on any trigger screen', async (t) => {
    // The stale form's 409 is logged by the browser as a failed request: an answer, not a page error.
    t.same(errors.filter((e) => !/status of 409/.test(e)), []);
  });
});
