// Agents, flows and knowledge in the console, in real headless Chromium against the real service and the demo workspace.
import t from 'tap';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { buildConsole } from '../../../scripts/build-console.js';
import { DEMO_SIGN_IN, seedDemo } from '../../../runtime/demo.js';
import { loadManifestFile } from '../../../runtime/manifest/load.js';
import { bearer, call } from '../../helpers/http.js';
import { startTestServer } from '../../helpers/server.js';
import { chromiumPath, fitsViewport, launch, pageErrors, screenshot, settledMessages, SKIP_REASON, waitUntil } from './browser.js';

const demoManifest = fileURLToPath(new URL('../../../examples/demo.workspace.json', import.meta.url));
const executable = chromiumPath();

t.before(() => buildConsole());

async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/console`);
  await page.getByLabel('Email').fill(DEMO_SIGN_IN.email);
  await page.getByLabel('Password').fill(DEMO_SIGN_IN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sessions' }).waitFor();
}

t.test('agents, flows and knowledge in Chromium', { skip: executable ? false : SKIP_REASON }, async (t) => {
  const browser: Browser = await launch(executable as string);
  t.teardown(() => browser.close());
  const server = await startTestServer(t);
  const demo = await seedDemo(server.service, loadManifestFile(demoManifest));

  for (const width of [1440, 360]) {
    t.test(`at ${width} px: edit a knowledge article and publish it; fix the Setup with a proposal, publish with a note, Run`, async (t) => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      t.teardown(() => context.close());
      const page = await context.newPage();
      const errors = pageErrors(page);
      await signIn(page, server.url);
      const word = `zebracorn${width}`;

      // Knowledge: module -> article -> edit the draft -> publish; the published text shows the change.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Knowledge' }).click();
      await page.getByRole('list', { name: 'Modules' }).getByRole('link', { name: 'Handbook' }).waitFor();
      t.match(await page.getByRole('list', { name: 'Knowledge bases' }).textContent(), /Demo handbook/);
      await screenshot(page, 'knowledge');
      t.ok(await fitsViewport(page), 'knowledge: no sideways scrolling');
      await page.getByRole('list', { name: 'Modules' }).getByRole('link', { name: 'Handbook' }).click();
      const articles = page.getByRole('list', { name: 'Articles' });
      await articles.getByRole('link', { name: 'Triggers' }).waitFor();
      t.match(await articles.textContent(), /Welcome to Switchyard.*published.*Triggers.*published/s, 'the module lists its articles and their state');
      await articles.getByRole('link', { name: 'Triggers' }).click();
      await page.getByRole('heading', { name: 'Triggers' }).waitFor();
      t.match(await page.getByRole('main').textContent(), /^(?!.*differs)/s, 'a freshly published article: draft and published text agree');
      const draft = page.getByLabel('Draft');
      await draft.fill(`${await draft.inputValue()} A ${word} is what the console test calls a trigger.`);
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByRole('status').filter({ hasText: 'Draft saved' }).waitFor();
      t.match(await page.getByRole('main').textContent(), /the draft differs from the published text/);
      t.notMatch(await page.getByRole('region', { name: 'Published text' }).textContent(), new RegExp(word), 'saving a draft does not publish it');
      await screenshot(page, 'article');
      t.ok(await fitsViewport(page), 'article: no sideways scrolling');
      await page.getByRole('button', { name: 'Publish', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Published: agents now find this text.' }).waitFor();
      t.match(await page.getByRole('region', { name: 'Published text' }).textContent(), new RegExp(word), 'the published text is the edited one');

      // Agents list -> the demo agent's Setup editor.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
      await page.getByRole('list', { name: 'Agents' }).getByRole('link', { name: 'Demo helper' }).waitFor();
      t.match(await page.getByRole('list', { name: 'Agents' }).textContent(), /Demo helper.*revision \d+/s, 'the list says which revision runs');
      await screenshot(page, 'agents');
      t.ok(await fitsViewport(page), 'agents: no sideways scrolling');
      await page.getByRole('list', { name: 'Agents' }).getByRole('link', { name: 'Demo helper' }).click();
      const setupStatus = page.getByRole('region', { name: 'Setup' }).getByRole('status');
      await setupStatus.filter({ hasText: 'No problems' }).waitFor();
      await screenshot(page, 'agent');
      t.ok(await fitsViewport(page), 'agent: no sideways scrolling');

      // A typo in a tool reference: the verifier marks it at its span and proposes the real tool.
      const procedure = page.getByLabel('Procedure', { exact: true });
      await procedure.fill('Look the question up with #knowledge.serch and answer from what it finds.');
      await setupStatus.filter({ hasText: '1 problem' }).waitFor();
      t.ok(await page.getByText('unpublished changes', { exact: true }).isVisible(), 'the saved draft differs from what runs');
      const findings = page.getByRole('list', { name: 'Verifier findings' });
      t.equal(await page.locator('.editor mark.problem').textContent(), '#knowledge.serch', 'the span is marked behind the text');
      await screenshot(page, 'agent-finding');
      t.match(await findings.textContent(), /No tool "knowledge\.serch"/, 'the finding is listed');
      await findings.getByRole('button', { name: 'Show “#knowledge.serch” in the procedure' }).click();
      // A string: it runs in the page, and this tree type-checks without the DOM lib.
      const selected = await page.evaluate<string>(`(() => { const f = document.activeElement; return f.id + ':' + f.value.slice(f.selectionStart, f.selectionEnd); })()`);
      t.equal(selected, 'procedure:#knowledge.serch', 'the finding focuses the procedure and selects its span');
      await findings.getByRole('button', { name: 'Replace with #knowledge.search' }).click();
      await setupStatus.filter({ hasText: 'No problems' }).waitFor();
      t.equal(await procedure.inputValue(), 'Look the question up with #knowledge.search and answer from what it finds.', 'the proposal replaced the span');
      t.equal(await findings.count(), 0, 'no findings left');

      // Publish with a change note: the new revision is listed as current with its note.
      const note = `Fixed the tool reference (${width} px)`;
      await page.getByLabel('Change note').fill(note);
      await page.getByRole('button', { name: 'Publish', exact: true }).click();
      const published = page.getByRole('status').filter({ hasText: /Published revision \d+\./ });
      await published.waitFor();
      const revision = /Published revision (\d+)\./.exec((await published.textContent()) ?? '')![1];
      const newest = page.getByRole('list', { name: 'Revisions' }).getByRole('listitem').first();
      await newest.filter({ hasText: `Revision ${revision}` }).waitFor();
      t.match(await newest.textContent(), new RegExp(`Revision ${revision}.*${note.replace(/[()]/g, '\\$&')}.*Current`), 'the new revision is current, with its note');
      // The run panel rereads the agent on its own after the publish (as the revisions list does): wait for its answer.
      const runPanel = page.getByRole('region', { name: 'Run' });
      await runPanel.filter({ hasText: `Runs use revision ${revision}.` }).waitFor();
      t.match(await runPanel.textContent(), new RegExp(`Runs use revision ${revision}`));
      t.equal(await page.getByText('unpublished changes', { exact: true }).count(), 0, 'published: nothing differs any more');
      t.match(await page.getByRole('region', { name: 'Run' }).textContent(), /Neither sends caller credentials/, 'the buttons say they send no caller credentials');

      // Run: a live session that answers, from the article just published.
      await page.getByLabel('First message').fill(word);
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.getByRole('heading', { name: 'Messages' }).waitFor();
      t.match(page.url(), /\/console\/sessions\/[0-9a-f-]{36}$/);
      await settledMessages(page, 2);
      const answer = page.getByRole('list', { name: 'Messages' }).getByRole('listitem').nth(1);
      t.match(await answer.textContent(), new RegExp(`${word} is what the console test calls a trigger`), 'the agent answers from the newly published text');
      t.same(errors, [], 'no CSP violation or script error');
      t.ok(await page.evaluate<boolean>('localStorage.length === 0 && sessionStorage.length === 0'), 'the svu_ token is kept in memory only');
    });
  }

  t.test('Test run opens a session only its opener sees', async (t) => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await signIn(page, server.url);
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'Demo helper' }).click();
    await page.getByLabel('First message').fill('A private try');
    await page.getByRole('button', { name: 'Test run' }).click();
    await page.getByRole('heading', { name: 'Messages' }).waitFor();
    await settledMessages(page, 2);
    const sessionId = /sessions\/([0-9a-f-]{36})$/.exec(page.url())![1];
    const read = await call(`${server.url}/api/v1/agents/sessions/${sessionId}`, { headers: bearer(demo.apiKey) });
    t.match(read.json, { visibility: 'personal', origin: 'console' });
  });

  t.test('a knowledge base lists its articles; a new article is a draft until published', async (t) => {
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signIn(page, server.url);
    await page.goto(`${server.url}/console/knowledge`);
    await page.getByRole('list', { name: 'Knowledge bases' }).getByRole('link', { name: 'Demo handbook' }).click();
    await page.getByRole('heading', { name: 'Demo handbook' }).waitFor();
    const articles = page.getByRole('list', { name: 'Articles' });
    await articles.getByRole('link', { name: 'Welcome to Switchyard' }).waitFor();
    await page.getByLabel('New article title').fill('Returns policy');
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.getByRole('heading', { name: 'Returns policy' }).waitFor();
    t.match(await page.getByRole('main').textContent(), /draft, not published/);
    await page.getByLabel('Draft').fill('Returns are accepted within 30 days.');
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('region', { name: 'Published text' }).filter({ hasText: 'Returns are accepted within 30 days.' }).waitFor();
    await page.goBack();
    await articles.getByRole('listitem').filter({ hasText: 'Returns policy' }).filter({ hasText: 'published' }).waitFor();
    await screenshot(page, 'knowledge-base');
    t.ok(await fitsViewport(page), 'knowledge base: no sideways scrolling');
    t.same(errors, [], 'no CSP violation or script error');
  });

  t.test('keyboard only: from the procedure, Tab reaches the finding; Enter selects its span, then applies the proposal', async (t) => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await signIn(page, server.url);
    await page.goto(`${server.url}/console/agents`);
    await page.getByRole('link', { name: 'Demo helper' }).click();
    const setupStatus = page.getByRole('region', { name: 'Setup' }).getByRole('status');
    await setupStatus.filter({ hasText: 'No problems' }).waitFor();
    const procedure = page.getByLabel('Procedure', { exact: true });
    await procedure.focus();
    await page.keyboard.press('End');
    await page.keyboard.type(' Then #knowledge.seerch again.');
    await setupStatus.filter({ hasText: '1 problem' }).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    const focused = `(() => { const f = document.activeElement; return f.id + ':' + f.value.slice(f.selectionStart, f.selectionEnd); })()`;
    t.equal(await page.evaluate<string>(focused), 'procedure:#knowledge.seerch', 'Show in procedure, by keyboard');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await setupStatus.filter({ hasText: 'No problems' }).waitFor();
    t.match(await procedure.inputValue(), /Then #knowledge\.search again\.$/, 'the proposal, applied by keyboard');
  });

  t.test('a flow shows its step graph and versions; making an earlier version current', async (t) => {
    const flows = await call(`${server.url}/api/v1/authoring/automations?kind=flow`, { headers: bearer(demo.apiKey) });
    const flowId = flows.json.automations[0].id as string;
    const version2 = {
      inputs: { type: 'object', properties: { prompt: { type: 'string', minLength: 1 } }, required: ['prompt'] },
      steps: [
        { id: 'search', tool: 'knowledge.search', args: { query: '{{input.prompt}}' } },
        { id: 'found', if: '{{steps.search.output}}', then: [{ id: 'again', tool: 'knowledge.search', args: { query: '{{steps.search.output}}' } }] },
      ],
      output: '{{steps.search.output}}',
    };
    const added = await call(`${server.url}/api/v1/flows/${flowId}/versions`, { method: 'POST', headers: bearer(demo.apiKey), json: { definition: version2, publish: true } });
    t.equal(added.status, 200, added.text);

    for (const width of [1440, 360]) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      t.teardown(() => context.close());
      const page = await context.newPage();
      const errors = pageErrors(page);
      await signIn(page, server.url);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flows' }).click();
      await page.getByRole('list', { name: 'Flows' }).getByRole('link', { name: 'Handbook lookup' }).click();
      const steps = page.getByRole('list', { name: 'Steps', exact: true });
      await steps.waitFor();
      t.match(await steps.getByRole('listitem').first().textContent(), /search: calls knowledge\.search/);
      const then = page.getByRole('list', { name: 'found: then' });
      t.match(await then.textContent(), /again: calls knowledge\.search.*reads the output of search/s, 'the branch step and its edge from search');
      const versions = page.getByRole('list', { name: 'Versions' }).getByRole('listitem');
      // The 1440 px pass makes version 1 current again; the newest is listed first either way.
      await versions.first().filter({ hasText: width === 1440 ? /Version 2.*Current/s : 'Version 2' }).waitFor();
      await screenshot(page, 'flow');
      t.ok(await fitsViewport(page), 'flow: no sideways scrolling');
      if (width === 1440) {
        await page.getByRole('button', { name: 'Make version 1 current' }).click();
        await versions.nth(1).filter({ hasText: /Version 1.*Current/s }).waitFor();
        await waitUntil(page, `document.querySelector('main').textContent.includes('published: version 1')`);
        t.pass('version 1 is current again');
      }
      t.same(errors, [], 'no CSP violation or script error');
    }
  });
});
