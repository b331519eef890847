// The publish verifier as a pure function: spans in UTF-16 offsets, proposals, belt from bindings, warnings, bounded output.
import t from 'tap';
import { MAX_REPORTED, verifySetup } from '../../../runtime/authoring/procedure-verifier.js';
import { EMPTY_SETUP } from '../../../runtime/authoring/agent-setup.js';
import { createToolCatalog } from '../../../runtime/tools/catalog.js';
import { crmIntegration } from '../../runtime/tools/crm-integration.fixture.js';

const catalog = createToolCatalog([crmIntegration('http://127.0.0.1:4010')]);
const setup = (procedure: string, extra: Partial<typeof EMPTY_SETUP> = {}) => ({ ...EMPTY_SETUP, procedure, ...extra });

t.test('spans are offsets of the whole "#wire.id" reference, after non-ASCII text too', async (t) => {
  const procedure = 'Café — d\'abord 👋 #crm.get_contct puis #crm.get_contact.';
  const report = verifySetup(setup(procedure), {}, catalog);
  t.equal(report.findings.length, 1);
  const [finding] = report.findings;
  t.equal(procedure.slice(finding.span!.start, finding.span!.end), '#crm.get_contct');
  t.equal(finding.proposal, 'crm.get_contact');
  t.equal(finding.kind, 'unknown_tool');
});

t.test('an unknown integration with nothing close has no proposal; sentence dots and words with # are not references', async (t) => {
  const report = verifySetup(setup('Call #weather.forecast. Issue a#crm.nope and see #crm alone.'), {}, catalog);
  t.same(report.findings.map((f) => [f.kind, f.proposal]), [['unknown_tool', null]]);
  t.same(report.plannedBelt, [{ integrationId: 'weather', identityMode: 'service' }], 'the belt plans what the procedure says (manifest apply does the same)');
});

t.test('the belt follows the bindings, in order of first reference', async (t) => {
  const report = verifySetup(setup('#knowledge.search then #crm.get_contact'), { crm: 'caller_required' }, catalog);
  t.same(report.plannedBelt, [
    { integrationId: 'knowledge', identityMode: 'service' },
    { integrationId: 'crm', identityMode: 'caller_required' },
  ]);
});

t.test('the report is bounded for enormous procedures', async (t) => {
  const procedure = Array.from({ length: 3000 }, (_, i) => `#crm.missing_${i}`).join(' ');
  const report = verifySetup(setup(procedure), {}, catalog);
  t.equal(report.findings.length, MAX_REPORTED);
  const bare = verifySetup(setup('crm.get_contact '.repeat(3000)), {}, catalog);
  t.equal(bare.warnings.length, MAX_REPORTED, 'warnings too (the empty_belt warning counts)');
});

t.test('a clean setup has no findings and no warnings', async (t) => {
  const report = verifySetup(setup('Read with #crm.get_contact.', { approvalTools: [] }), {}, catalog);
  t.same(report, { findings: [], plannedBelt: [{ integrationId: 'crm', identityMode: 'service' }], warnings: [] });
});
