// validateFlowDefinition: what publish/apply refuses (tools, ids, templates, references, arguments) and what it accepts.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { AppError } from '../../../runtime/errors.js';
import { assertValidFlowDefinition, validateFlowDefinition, type FlowIssue } from '../../../runtime/flows/validate-flow.js';
import { createToolCatalog } from '../../../runtime/tools/catalog.js';
import { crmIntegration } from '../tools/crm-integration.fixture.js';

const catalog = createToolCatalog([crmIntegration('http://127.0.0.1:4010')]);
const example = JSON.parse(readFileSync(new URL('../../../examples/workspace.json', import.meta.url), 'utf8'));
const enrich = example.organizations[0].flows[0];
const inputs = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
const get = { id: 'get', tool: 'crm.get_contact', args: { id: '{{input.id}}' } };

function issues(def: unknown): FlowIssue[] {
  const result = validateFlowDefinition(def, catalog);
  return result.ok ? [] : [...result.issues];
}

t.test('the example enrich flow is valid; its belt is the crm integration at service identity', async (t) => {
  const result = validateFlowDefinition(enrich, catalog);
  t.ok(result.ok, JSON.stringify(result));
  if (result.ok) t.same(result.belt, [{ integrationId: 'crm', identityMode: 'service' }]);
  const stored = validateFlowDefinition({ inputs: enrich.inputs, steps: enrich.steps, output: enrich.output, bindings: { crm: 'caller_required' } }, catalog);
  t.ok(stored.ok);
  if (stored.ok) t.same(stored.belt, [{ integrationId: 'crm', identityMode: 'caller_required' }]);
});

t.test('unknown tools, duplicate step ids, unknown bound integrations (knowledge.search is allowed)', async (t) => {
  const found = issues({
    inputs,
    steps: [
      get,
      { id: 'x', tool: 'crm.delete_everything', args: {} },
      { id: 'k', tool: 'knowledge.search', args: { query: 'q' } },
      { id: 'c', if: '{{true}}', then: [{ id: 'get', tool: 'crm.get_contact', args: { id: 'c-1' } }] },
    ],
    bindings: { nope: 'service' },
  });
  t.same(found, [
    { path: 'steps[3].then[0].id', message: 'duplicate step id "get" (first at steps[0])' },
    { path: 'steps[1].tool', message: 'no tool "crm.delete_everything" in any available integration' },
    { path: 'bindings.nope', message: 'no integration "nope"' },
  ]);
});

t.test('templates that do not compile, and conditions that are not one expression', async (t) => {
  const found = issues({
    inputs,
    steps: [
      { id: 'a', tool: 'crm.get_contact', args: { id: '{{input.id' } },
      { id: 'b', tool: 'crm.get_contact', args: { id: '{{ process.exit(1) }}' } },
      { id: 'c', if: "steps.a.output.tier == 'x'", then: [{ id: 'd', tool: 'crm.get_contact', args: { id: 'x' } }] },
      { id: 'e', if: 'tier is {{steps.a.output.tier}}', then: [{ id: 'f', tool: 'crm.get_contact', args: { id: 'x' } }] },
      { id: 'g', if: '{{input.x = 1}}', then: [{ id: 'h', tool: 'crm.get_contact', args: { id: 'x' } }] },
    ],
    output: { a: ['{{steps.a.output ==}}'] },
  });
  t.same(
    found.map((i) => i.path),
    ['steps[0].args.id', 'steps[1].args.id', 'steps[2].if', 'steps[3].if', 'steps[4].if', 'output.a[0]'],
  );
  t.match(found[0]!.message, /^template error at character 1: "\{\{" is not closed/);
  t.match(found[1]!.message, /unknown name "process"/);
  t.equal(found[2]!.message, 'must be a single "{{ … }}" expression');
  t.equal(found[3]!.message, 'must be a single "{{ … }}" expression');
  t.match(found[4]!.message, /compare with "=="/);
});

t.test('references: unknown steps, later steps, itself, condition steps, the other branch', async (t) => {
  const found = issues({
    inputs,
    steps: [
      { id: 'first', tool: 'crm.get_contact', args: { id: '{{steps.second.output.id}}' } },
      { id: 'second', tool: 'crm.get_contact', args: { id: '{{steps.second.output.id}}' } },
      {
        id: 'cond',
        if: '{{steps.inside.output.id == steps.cond.output}}',
        then: [{ id: 'inside', tool: 'crm.get_contact', args: { id: '{{steps.first.output.id}}' } }],
        else: [{ id: 'other', tool: 'crm.get_contact', args: { id: '{{steps.inside.output.id}} {{steps.ghost.output}}' } }],
      },
    ],
    output: '{{steps.other.output}} {{steps.cond.output}}',
  });
  t.same(found, [
    { path: 'steps[0].args.id', message: 'refers to step "second", which runs later' },
    { path: 'steps[1].args.id', message: 'refers to step "second", which runs as this step' },
    { path: 'steps[2].if', message: 'refers to step "inside", which runs later' },
    { path: 'steps[2].if', message: 'refers to "cond", a condition step, which has no output' },
    { path: 'steps[2].else[0].args.id', message: 'refers to step "inside" on another branch of the same condition, which never runs before this step' },
    { path: 'steps[2].else[0].args.id', message: 'refers to unknown step "ghost"' },
    { path: 'output', message: 'refers to "cond", a condition step, which has no output' },
  ]);
});

t.test('steps on sequential conditions may read each other; the output may read any tool step', async (t) => {
  t.same(
    issues({
      inputs,
      steps: [
        { id: 'c1', if: '{{input.id}}', then: [get] },
        { id: 'c2', if: "{{steps.get.output.tier == 'pro'}}", then: [{ id: 'tag', tool: 'crm.update_contact', args: { id: '{{steps.get.output.id}}', note: 'n' } }] },
      ],
      output: { got: '{{steps.get.output}}', tagged: '{{steps.tag.output}}' },
    }),
    [],
  );
});

t.test('arguments with no template are checked against the tool input at publish time', async (t) => {
  const found = issues({ inputs, steps: [{ id: 'u', tool: 'crm.update_contact', args: { id: 'c-1', tier: 'platinum', extra: 1 } }] });
  t.equal(found.length, 1);
  t.equal(found[0]!.path, 'steps[0].args');
  t.match(found[0]!.message, /\/tier: must be equal to one of the allowed values/);
  t.match(found[0]!.message, /\/extra: must NOT have additional properties/);
  t.same(issues({ inputs, steps: [{ id: 'u', tool: 'crm.update_contact', args: { id: '{{input.id}}', tier: 'platinum' } }] }), [], 'templated arguments are checked when the step runs');
});

t.test('shape errors and an unusable inputs schema', async (t) => {
  t.same(issues({ inputs, steps: [] }), [{ path: 'steps', message: 'must have at least one step' }]);
  t.same(issues({ inputs, steps: [{ id: 'a', tool: 'crm.get_contact', args: { id: 'x' }, retry: 3 }] }), [{ path: 'steps[0].retry', message: 'is not a known field' }]);
  t.same(issues({ inputs, steps: [{ id: 'bad-id', tool: 'crm.get_contact' }] }).map((i) => i.path), ['steps[0].id']);
  t.same(issues({ inputs: { type: 'object', properties: { id: { type: 'strang' } } }, steps: [get] }).map((i) => i.path), ['inputs']);
  t.same(issues(null).map((i) => i.path), ['(root)']);
});

t.test('assertValidFlowDefinition answers 422 VALIDATION with findings', async (t) => {
  const error = t.throws(() => assertValidFlowDefinition({ inputs, steps: [{ id: 'a', tool: 'crm.nope' }] }, catalog)) as unknown as AppError;
  t.ok(error instanceof AppError);
  t.match(error, { code: 'VALIDATION', status: 422, details: { findings: [{ path: 'steps[0].tool', message: 'no tool "crm.nope" in any available integration' }] } });
  t.ok(assertValidFlowDefinition(enrich, catalog).ok);
});
