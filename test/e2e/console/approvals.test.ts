// The approvals inbox and session writes in real headless Chromium against the real service and a loopback crm upstream.
import t from 'tap';
import type { Browser, Page } from 'playwright-core';
import { buildConsole } from '../../../scripts/build-console.js';
import { bearer, call } from '../../helpers/http.js';
import { crmCredentials, crmResponder, startConversation, type Conversation } from '../../http/sessions/conversation-fixture.js';
import { chromiumPath, fitsViewport, launch, pageErrors, screenshot, SKIP_REASON, waitUntil } from './browser.js';
import { sqlReader } from '../../helpers/sql.js';

const UPGRADE = '{"id": "c-1", "tier": "enterprise"}';
const executable = chromiumPath();

t.before(() => buildConsole());

async function suspended(c: Conversation, user = 'ada'): Promise<string> {
  const opened = await c.open('upgrader', user, { message: UPGRADE, callerCredentials: crmCredentials() });
  if (opened.status !== 202) throw new Error(`open answered ${opened.status}: ${opened.text}`);
  await c.settle();
  return opened.json.sessionId as string;
}

async function signIn(page: Page, url: string, email: string, password: string): Promise<void> {
  await page.goto(`${url}/console`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sessions' }).waitFor();
}

const approvalOf = async (c: Conversation, sessionId: string) =>
  (await sqlReader(c.server.service).get('SELECT status, comment, edited, edited_args FROM approvals WHERE session_id = ? ORDER BY created_at DESC LIMIT 1', sessionId)) as Record<string, unknown>;

t.test('approvals and session writes in Chromium', { skip: executable ? false : SKIP_REASON }, async (t) => {
  const browser: Browser = await launch(executable as string);
  t.teardown(() => browser.close());
  const c = await startConversation(t);
  const url = c.server.url;

  t.test('approve with edited arguments (checked against the tool schema first), reject with a comment, a stale decision shows the 409', async (t) => {
    const edited = await suspended(c);
    const rejected = await suspended(c);
    const stale = await suspended(c);
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signIn(page, url, 'ada@acme.test', 'ada-password-1');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }).click();
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
    const cards = page.getByRole('list', { name: 'Pending approvals' }).getByRole('listitem').filter({ has: page.getByRole('heading') });
    await waitUntil(page, `document.querySelectorAll('ul[aria-label="Pending approvals"] > li').length === 3`);
    const card = (index: number) => cards.nth(index);
    t.match(await card(0).getByLabel('Proposed arguments').textContent(), /"tier": "enterprise"/, 'the proposal is shown');

    // Edit: invalid JSON, then a value the schema refuses, are caught before anything is sent.
    await card(0).getByRole('button', { name: 'Edit arguments' }).click();
    const editor = card(0).getByLabel('Arguments (JSON)');
    const approveEdited = card(0).getByRole('button', { name: 'Approve with these arguments' });
    await editor.fill('{"id": "c-1", ');
    const problems = card(0).getByRole('list', { name: 'Problems with the arguments' });
    await problems.filter({ hasText: 'Not valid JSON' }).waitFor();
    t.ok(await approveEdited.isDisabled(), 'cannot send broken JSON');
    await editor.fill('{"id": "c-1", "tier": "gold"}');
    await problems.filter({ hasText: '/tier' }).waitFor();
    t.match(await problems.textContent(), /\/tier: .*free.*pro.*enterprise/, 'the schema\'s enum is enforced in the browser');
    t.ok(await approveEdited.isDisabled());
    const patched = c.upstream.nextRequest();
    await editor.fill('{"id": "c-1", "tier": "pro"}');
    await approveEdited.click();
    await page.getByRole('status').filter({ hasText: 'Approved with edited arguments' }).waitFor();
    const request = await patched;
    t.equal(request.method, 'PATCH');
    t.same(JSON.parse(request.body), { tier: 'pro' }, 'the tool call ran with the edited arguments');
    await c.settle(edited);
    t.match((await approvalOf(c, edited)), { status: 'approved', edited: 1 });

    // Reject with a comment.
    await waitUntil(page, `document.querySelectorAll('ul[aria-label="Pending approvals"] > li').length === 2`);
    const toReject = cards.filter({ has: page.getByRole('link', { name: `Session …${rejected.slice(-8)}` }) });
    await toReject.getByLabel('Comment').fill('Not this quarter');
    await toReject.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('status').filter({ hasText: 'Rejected' }).waitFor();
    await c.settle(rejected);
    t.match((await approvalOf(c, rejected)), { status: 'rejected', comment: 'Not this quarter' });

    // Stale: someone else decides first; the browser's decision gets the API's 409 and says so.
    const staleCard = cards.filter({ has: page.getByRole('link', { name: `Session …${stale.slice(-8)}` }) });
    await staleCard.waitFor();
    // The other decision lands while the browser's request is on its way: a poll can then never remove the card first.
    await page.route(
      '**/turn-approval',
      async (route) => {
        const first = await c.post(`/agents/sessions/${stale}/turn-approval`, 'ada', { decision: 'rejected' });
        t.equal(first.status, 200, 'someone else decided first');
        await route.continue();
      },
      { times: 1 },
    );
    await staleCard.getByRole('button', { name: 'Approve', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: '409' });
    await alert.waitFor();
    t.match(await alert.textContent(), /409 APPROVAL_CONFLICT.*no longer waiting|409 APPROVAL_CONFLICT/);
    await waitUntil(page, `document.querySelectorAll('ul[aria-label="Pending approvals"] > li').length === 0`);
    await page.getByText('Nothing waits for your decision').waitFor();

    // The session page shows the call as it ran.
    await page.goto(`${url}/console/sessions/${edited}`);
    const calls = page.getByRole('list', { name: 'Tool calls' }).getByRole('listitem');
    await calls.filter({ hasText: 'crm.update_contact' }).filter({ hasText: 'succeeded' }).waitFor();
    t.match(await calls.filter({ hasText: 'crm.update_contact' }).textContent(), /"tier": "pro"/, 'the session shows the edited arguments');
    // The browser logs the refused request itself; anything else would be a real page error.
    t.same(errors.filter((e) => !/status of 409/.test(e)), [], 'no CSP violation or script error');
  });

  t.test('from the session page: send a message, cancel a running turn, rename, set an outcome, archive', async (t) => {
    const opened = await c.open('lookup', 'ada', { message: '{"id": "c-1"}' });
    await c.settle();
    const sessionId = opened.json.sessionId as string;
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signIn(page, url, 'ada@acme.test', 'ada-password-1');
    await page.goto(`${url}/console/sessions/${sessionId}`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const messages = page.getByRole('list', { name: 'Messages' }).getByRole('listitem');
    await messages.nth(1).waitFor();

    // The crm holds its answer, so the turn is running when the person cancels it.
    const held: Array<() => void> = [];
    c.upstream.respond((request, res) => held.push(() => crmResponder(request, res)));
    t.teardown(() => held.forEach((release) => release()));
    const reached = c.upstream.nextRequest();
    await page.getByLabel('Message', { exact: true }).fill('{"id": "c-2"}');
    await page.getByRole('button', { name: 'Send' }).click();
    await messages.filter({ hasText: '"c-2"' }).waitFor();
    await reached;
    await page.getByRole('button', { name: 'Cancel turn' }).click();
    await page.getByRole('button', { name: 'Cancel turn' }).waitFor({ state: 'detached' });
    const view = (await c.get(`/agents/sessions/${sessionId}`, 'ada')).json;
    t.match(view.latestTurn, { errorCode: 'CANCELLED' }, 'the running turn was cancelled');
    c.upstream.respond(crmResponder);

    await page.getByLabel('Title').fill('Contact c-2 follow-up');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('heading', { name: 'Contact c-2 follow-up' }).waitFor();
    await page.getByLabel('Outcome').selectOption('escalated');
    await waitUntil(page, `document.querySelector('select')?.value === 'escalated' && !document.querySelector('select').disabled`);
    await page.getByRole('button', { name: 'Archive', exact: true }).click();
    await page.getByText('This session is archived').waitFor();
    t.equal(await page.getByRole('button', { name: 'Send' }).count(), 0, 'archived: no composer');
    const archived = (await c.get(`/agents/sessions/${sessionId}`, 'ada')).json;
    t.match(archived, { title: 'Contact c-2 follow-up', outcome: 'escalated' });
    t.ok(archived.archivedAt, 'archived through the API');
    await page.getByRole('button', { name: 'Unarchive' }).click();
    await page.getByRole('button', { name: 'Send' }).waitFor();

    // An upgrader turn needs the caller's own crm token: the API's refusal is shown as it is worded.
    const upgrade = await suspended(c);
    await c.post(`/agents/sessions/${upgrade}/cancel`, 'ada', {});
    await page.goto(`${url}/console/sessions/${upgrade}`);
    await page.getByLabel('Message', { exact: true }).fill('again');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('alert').filter({ hasText: /credential/i }).waitFor();
    t.pass('the API\'s message is shown');
    t.same(errors.filter((e) => !/status of 422/.test(e)), [], 'no CSP violation or script error');
  });

  t.test('a viewer sees no controls they cannot use', async (t) => {
    const sessionId = await suspended(c);
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await signIn(page, url, 'vic@acme.test', 'vic-password-1');
    await page.goto(`${url}/console/sessions/${sessionId}`);
    await page.getByText('your role in its domain does not let you send messages').waitFor();
    for (const name of ['Send', 'Cancel turn', 'Rename', 'Archive']) t.equal(await page.getByRole('button', { name, exact: true }).count(), 0, `no ${name}`);
    await page.goto(`${url}/console/approvals`);
    await page.getByText('Nothing waits for your decision').waitFor();
    await c.post(`/agents/sessions/${sessionId}/cancel`, 'ada', {});
  });

  for (const width of [360, 1440]) {
    t.test(`screenshots of the inbox and a session page at ${width} px`, async (t) => {
      const waiting = await suspended(c);
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      t.teardown(() => context.close());
      const page = await context.newPage();
      const errors = pageErrors(page);
      await signIn(page, url, 'ada@acme.test', 'ada-password-1');
      await page.goto(`${url}/console/approvals`);
      const card = page.getByRole('list', { name: 'Pending approvals' }).getByRole('listitem').first();
      await card.waitFor();
      await card.getByRole('button', { name: 'Edit arguments' }).click();
      await card.getByLabel('Arguments (JSON)').fill('{"id": "c-1", "tier": "gold"}');
      await screenshot(page, 'approvals');
      t.ok(await fitsViewport(page), 'approvals: no sideways scrolling');
      await page.goto(`${url}/console/sessions/${waiting}`);
      await page.getByRole('button', { name: 'Cancel turn' }).waitFor();
      await screenshot(page, 'session-actions');
      t.ok(await fitsViewport(page), 'session: no sideways scrolling');
      await call(`${url}/api/v1/agents/sessions/${waiting}/cancel`, { method: 'POST', headers: bearer(c.key('ada')), json: {} });
      t.same(errors, []);
    });
  }
});
