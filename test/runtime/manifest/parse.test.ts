import t, { type Test } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadManifestFile, parseManifestJson } from '../../../runtime/manifest/load.js';
import { ManifestError } from '../../../runtime/manifest/manifest-error.js';
import { parseManifest } from '../../../runtime/manifest/parse.js';
import { DEMO_MANIFEST_PATH, EXAMPLE_PATH, example } from './manifest-fixtures.js';

/** The ManifestError `work` throws; fails the test if it throws anything else or nothing. */
function refusal(t: Test, work: () => unknown): ManifestError {
  try {
    work();
  } catch (error) {
    if (error instanceof ManifestError) return error;
    throw error;
  }
  t.fail('expected a ManifestError');
  return new ManifestError([]);
}

t.test('the contract example is accepted exactly as it is', async (t) => {
  const manifest = loadManifestFile(EXAMPLE_PATH);
  t.equal(manifest.integrations[0]!.tools.length, 2);
  t.same(manifest.organizations.map((o) => o.ref), ['acme', 'globex']);
  t.equal(manifest.organizations[0]!.triggers[2]!.type, 'schedule');
  t.equal(manifest.partners[0]!.provisioning?.quota, 3);
  // Defaults appear after parsing: globex declares no connections, flows or knowledge.
  t.same(manifest.organizations[1]!.connections, []);
  t.same(manifest.organizations[1]!.knowledge, { bases: [], modules: [] });
});

t.test('the demo manifest is accepted', async (t) => {
  const manifest = loadManifestFile(DEMO_MANIFEST_PATH);
  const org = manifest.organizations[0]!;
  t.equal(org.users[0]!.email, 'demo@switchyard.local');
  t.same(org.users[0]!.apiKeys, ['demo-key']);
  t.same(org.triggers.find((tr) => tr.ref === 'demo-trigger')?.subscribers, ['demo-agent', 'demo-flow']);
  t.equal(org.agents[0]!.setup.model, 'builtin:procedure');
  t.equal(org.agents[0]!.publish, true);
});

/** Each case breaks the example one way; the refusal must name this JSON path and say this. */
const BROKEN: Array<{ name: string; path: string; message: RegExp; breakIt: (m: any) => void }> = [
  { name: 'empty model', path: 'organizations[0].agents[1].setup.model', message: /must not be empty/, breakIt: (m) => (m.organizations[0].agents[1].setup.model = '   ') },
  { name: 'unknown key (typo)', path: 'organizations[0].agents[0].setp', message: /not a known field/, breakIt: (m) => (m.organizations[0].agents[0].setp = {}) },
  { name: 'name too long', path: 'organizations[0].agents[0].name', message: /at most 120/, breakIt: (m) => (m.organizations[0].agents[0].name = 'x'.repeat(121)) },
  { name: 'description too long', path: 'organizations[0].agents[0].description', message: /at most 2000/, breakIt: (m) => (m.organizations[0].agents[0].description = 'x'.repeat(2001)) },
  { name: 'principles too long', path: 'organizations[0].agents[0].setup.principles', message: /at most 100000/, breakIt: (m) => (m.organizations[0].agents[0].setup.principles = 'x'.repeat(100_001)) },
  { name: 'procedure too long', path: 'organizations[0].agents[0].setup.procedure', message: /at most 200000/, breakIt: (m) => (m.organizations[0].agents[0].setup.procedure = 'x'.repeat(200_001)) },
  { name: 'too many approval tools', path: 'organizations[0].agents[1].setup.approvalTools', message: /at most 50/, breakIt: (m) => (m.organizations[0].agents[1].setup.approvalTools = Array.from({ length: 51 }, (_, i) => `crm.t${i}`)) },
  { name: 'approval tool too long', path: 'organizations[0].agents[1].setup.approvalTools[0]', message: /at most 100/, breakIt: (m) => (m.organizations[0].agents[1].setup.approvalTools = ['x'.repeat(101)]) },
  { name: 'bad binding policy', path: 'organizations[0].agents[0].bindings.crm', message: /service.*caller_preferred.*caller_required/, breakIt: (m) => (m.organizations[0].agents[0].bindings.crm = 'caller') },
  { name: 'bad org role', path: 'organizations[0].users[1].orgRole', message: /owner.*admin.*member/, breakIt: (m) => (m.organizations[0].users[1].orgRole = 'operator') },
  { name: 'bad domain role', path: 'organizations[0].domains[0].members[1].role', message: /owner.*editor.*operator.*viewer/, breakIt: (m) => (m.organizations[0].domains[0].members[1].role = 'admin') },
  { name: 'unknown trigger type', path: 'organizations[0].triggers[0].type', message: /api.*schedule.*event/, breakIt: (m) => (m.organizations[0].triggers[0].type = 'webhook') },
  { name: 'bad cron', path: 'organizations[0].triggers[2].cron', message: /not a valid cron/, breakIt: (m) => (m.organizations[0].triggers[2].cron = '0 25 * * *') },
  { name: 'bad time zone', path: 'organizations[0].triggers[2].timezone', message: /IANA/, breakIt: (m) => (m.organizations[0].triggers[2].timezone = 'Mars/Olympus') },
  { name: 'missing required field', path: 'organizations[0].users[0].email', message: /is required/, breakIt: (m) => delete m.organizations[0].users[0].email },
  { name: 'article title too long', path: 'organizations[0].knowledge.bases[0].articles[0].title', message: /at most 240/, breakIt: (m) => (m.organizations[0].knowledge.bases[0].articles[0].title = 'x'.repeat(241)) },
  { name: 'module name empty', path: 'organizations[0].knowledge.modules[0].name', message: /must not be empty/, breakIt: (m) => (m.organizations[0].knowledge.modules[0].name = '') },
  { name: 'module description too long', path: 'organizations[0].knowledge.modules[0].description', message: /at most 10000/, breakIt: (m) => (m.organizations[0].knowledge.modules[0].description = 'x'.repeat(10_001)) },
  { name: 'flow step typo inside a branch', path: 'organizations[0].flows[0].steps[1].then[0].tol', message: /not a known field/, breakIt: (m) => { const step = m.organizations[0].flows[0].steps[1].then[0]; step.tol = step.tool; delete step.tool; } },
  { name: 'tool outside its integration', path: 'integrations[0].tools[0].name', message: /must start with the integration id/, breakIt: (m) => (m.integrations[0].tools[0].name = 'other.get_contact') },
  { name: 'path placeholder not in inputSchema', path: 'integrations[0].tools[0].request.path', message: /\{contact\}/, breakIt: (m) => (m.integrations[0].tools[0].request.path = '/contacts/{contact}') },
  // Cross-reference checks.
  { name: 'domain member is not a user', path: 'organizations[0].domains[0].members[1].user', message: /no user "zed"/, breakIt: (m) => (m.organizations[0].domains[0].members[1].user = 'zed') },
  { name: 'agent in an unknown domain', path: 'organizations[0].agents[0].domain', message: /no domain "marketing"/, breakIt: (m) => (m.organizations[0].agents[0].domain = 'marketing') },
  { name: 'unknown subscriber', path: 'organizations[0].triggers[0].subscribers[1]', message: /no agent or flow "enrichh"/, breakIt: (m) => (m.organizations[0].triggers[0].subscribers[1] = 'enrichh') },
  { name: 'subscriber from another organization', path: 'organizations[1].triggers[0].subscribers[0]', message: /no agent or flow "lookup"/, breakIt: (m) => (m.organizations[1].triggers[0].subscribers[0] = 'lookup') },
  { name: 'duplicate subscriber', path: 'organizations[0].triggers[0].subscribers[1]', message: /duplicate subscriber "lookup"/, breakIt: (m) => (m.organizations[0].triggers[0].subscribers = ['lookup', 'lookup']) },
  { name: 'connection to an unknown integration', path: 'organizations[0].connections[0].integration', message: /no integration "crmm"/, breakIt: (m) => (m.organizations[0].connections[0].integration = 'crmm') },
  { name: 'connection in an unknown domain', path: 'organizations[0].connections[0].domain', message: /no domain "ops"/, breakIt: (m) => (m.organizations[0].connections[0].domain = 'ops') },
  { name: 'module names an unknown article', path: 'organizations[0].knowledge.modules[0].articles[0]', message: /no article "pricingg"/, breakIt: (m) => (m.organizations[0].knowledge.modules[0].articles[0] = 'pricingg') },
  { name: 'module names an unpublished article', path: 'organizations[0].knowledge.modules[0].articles[1]', message: /"wip" is not published/, breakIt: (m) => m.organizations[0].knowledge.modules[0].articles.push('wip') },
  { name: 'partner names an unknown template', path: 'partners[0].provisioning.template', message: /no template "pro"/, breakIt: (m) => (m.partners[0].provisioning.template = 'pro') },
  { name: 'approval tool of an unbound integration', path: 'organizations[0].agents[1].setup.approvalTools[0]', message: /not a tool of an integration this agent binds/, breakIt: (m) => (m.organizations[0].agents[1].bindings = {}) },
  { name: 'approval tool that does not exist', path: 'organizations[0].agents[1].setup.approvalTools[0]', message: /no tool "crm.delete_contact"/, breakIt: (m) => (m.organizations[0].agents[1].setup.approvalTools = ['crm.delete_contact']) },
  { name: 'duplicate ref across the manifest', path: 'organizations[1].domains[0].ref', message: /duplicate ref "sales" \(first used at organizations\[0\]\.domains\[0\]\.ref\)/, breakIt: (m) => { m.organizations[1].domains[0].ref = 'sales'; m.organizations[1].agents[0].domain = 'sales'; m.organizations[1].triggers[0].domain = 'sales'; } },
  { name: 'duplicate api key ref', path: 'organizations[0].users[1].apiKeys[0]', message: /duplicate ref "ada-key"/, breakIt: (m) => (m.organizations[0].users[1].apiKeys = ['ada-key']) },
  { name: 'event type the integration does not declare', path: 'organizations[0].triggers[3].eventType', message: /declares no event "contact.deleted"/, breakIt: (m) => (m.organizations[0].triggers[3].eventType = 'contact.deleted') },
  { name: 'event filter on an undeclared payload path', path: 'organizations[0].triggers[3].eventFilter.field', message: /contact\.name/, breakIt: (m) => (m.organizations[0].triggers[3].eventFilter.field = 'contact.name') },
  { name: 'flow reads a step that does not exist', path: 'organizations[0].flows[0].output', message: /reads step "got"/, breakIt: (m) => (m.organizations[0].flows[0].output = '{{steps.got.output}}') },
  { name: 'flow template that does not compile', path: 'organizations[0].flows[0].steps[1].if', message: /template error/, breakIt: (m) => (m.organizations[0].flows[0].steps[1].if = '{{steps.get.output.tier ==}}') },
  { name: 'published agent references an unknown tool', path: 'organizations[0].agents[0].setup.procedure', message: /unknown tool "#crm.find_contact"/, breakIt: (m) => (m.organizations[0].agents[0].setup.procedure = 'Use #crm.find_contact.') },
  { name: 'secret field the integration does not declare', path: 'organizations[0].connections[0].secret.fields.password', message: /declares no field "password"/, breakIt: (m) => (m.organizations[0].connections[0].secret.fields = { password: 'x' }) },
  { name: 'manifest redefines a built-in integration', path: 'integrations[0].id', message: /built-in/, breakIt: (m) => { m.integrations[0].id = 'http'; for (const tool of m.integrations[0].tools) tool.name = tool.name.replace('crm.', 'http.'); } },
];

t.test('broken manifests are refused, naming the JSON path at fault', async (t) => {
  for (const c of BROKEN) {
    const manifest = example();
    c.breakIt(manifest);
    const error = refusal(t, () => parseManifest(manifest));
    const issue = error.issues.find((i) => i.path === c.path);
    t.ok(issue, `${c.name}: an issue at ${c.path} (got ${error.issues.map((i) => i.path).join(', ')})`);
    t.match(issue?.message ?? '', c.message, `${c.name}: message`);
    t.match(error.message, c.path, `${c.name}: the path is in the error message`);
    t.equal(error.code, 'VALIDATION');
  }
});

t.test('every problem is reported at once, one line per path', async (t) => {
  const manifest = example();
  manifest.organizations[0].agents[1].setup.model = '';
  manifest.organizations[0].agents[0].setp = {};
  const error = refusal(t, () => parseManifest(manifest, { source: 'x.json' }));
  t.same(error.issues.map((i) => i.path).sort(), ['organizations[0].agents[0].setp', 'organizations[0].agents[1].setup.model']);
  t.match(error.message, /^invalid workspace manifest x\.json, 2 problems:/);
  t.match(error.message, '\n  organizations[0].agents[1].setup.model: must not be empty');
});

t.test('refusals never echo secret values', async (t) => {
  const manifest = example();
  manifest.organizations[0].connections[0].secret.token = 'top-secret\nvalue';
  manifest.organizations[0].users[0].password = 'short';
  const error = refusal(t, () => parseManifest(manifest));
  t.same(error.issues.map((i) => i.path).sort(), ['organizations[0].connections[0].secret.token', 'organizations[0].users[0].password']);
  t.notMatch(error.message, 'top-secret');
  t.notMatch(error.message, 'short');
  t.notMatch(JSON.stringify(error.toBody()), 'top-secret');
});

t.test('JSON syntax errors are reported with line, column and offset', async (t) => {
  const broken = '{\n  "organizations": [\n    { "ref": "a" }\n    { "ref": "b" }\n  ]\n}';
  const error = refusal(t, () => parseManifestJson(broken, 'bad.json'));
  t.equal(error.issues.length, 1);
  t.match(error.message, /^invalid workspace manifest bad\.json: \(root\): invalid JSON at line 4, column 5 \(offset 46\)/);
  const truncated = refusal(t, () => parseManifestJson('{"organizations": [', 'cut.json'));
  t.match(truncated.message, /line 1, column 20 \(offset 19\)/);
});

t.test('loadManifestFile reports unreadable files and bad JSON as ManifestError', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-manifest-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const missing = join(dir, 'missing.json');
  t.match(refusal(t, () => loadManifestFile(missing)).message, /cannot read the file \(ENOENT\)/);
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, '{ "organizations": [ }');
  t.match(refusal(t, () => loadManifestFile(bad)).message, new RegExp(`${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\(root\\): invalid JSON at line 1`));
  const typo = join(dir, 'typo.json');
  writeFileSync(typo, '\ufeff{ "organisations": [] }');
  t.same(refusal(t, () => loadManifestFile(typo)).issues, [{ path: 'organisations', message: 'is not a known field' }]);
});
