// Flow templates: whole-value templates keep JSON types, embedded ones become text, data is never re-evaluated.
import fc from 'fast-check';
import t from 'tap';
import type { FlowScope } from '../../../runtime/flows/expression-eval.js';
import { TemplateCache, TemplateSyntaxError, compileTemplate, renderCompiled, textOf } from '../../../runtime/flows/template.js';
import type { JsonValue } from '../../../runtime/manifest/json-value.schema.js';

const contact = { id: 'c-1', tier: 'pro', seats: 12, active: true, owner: null, tags: ['x'] };
const scope: FlowScope = {
  input: { id: 'c-1', note: '{{steps.get.output}}', attack: "' || input.id || '" },
  outputs: new Map<string, JsonValue>([['get', contact]]),
};
const render = (source: string) => renderCompiled(compileTemplate(source), scope);

t.test('a whole-value template keeps the JSON type of its value', async (t) => {
  t.same(render('{{steps.get.output}}'), contact, 'an object stays an object');
  t.equal(render('{{steps.get.output.seats}}'), 12);
  t.equal(render('{{ steps.get.output.active }}'), true, 'spaces inside the braces are fine');
  t.equal(render('{{steps.get.output.owner}}'), null);
  t.same(render('{{steps.get.output.tags}}'), ['x']);
  t.equal(render("{{steps.get.output.tier == 'pro'}}"), true);
});

t.test('templates embedded in text are stringified', async (t) => {
  t.equal(render('Contact {{input.id}} is {{steps.get.output.tier}}'), 'Contact c-1 is pro');
  t.equal(render(' {{steps.get.output.seats}}'), ' 12', 'surrounding text (even a space) makes it text');
  t.equal(render('owner=[{{steps.get.output.owner}}]'), 'owner=[]', 'null reads as nothing');
  t.equal(render('tags={{steps.get.output.tags}}'), 'tags=["x"]', 'arrays and objects as JSON');
  t.equal(render('{{steps.get.output.active}}!'), 'true!');
  t.equal(render('{{input.id}}{{input.id}}'), 'c-1c-1', 'two templates are text');
  t.equal(render("{{'}}'}}"), '}}', 'a "}}" inside a string literal does not close the template');
  t.equal(render('no templates at all'), 'no templates at all');
  t.same([textOf('s'), textOf(1.5), textOf(false), textOf(null), textOf({ a: 1 })], ['s', '1.5', 'false', '', '{"a":1}']);
});

t.test('data that looks like a template or an expression stays data (no second evaluation)', async (t) => {
  t.equal(render('{{input.note}}'), '{{steps.get.output}}', 'a whole-value template yields the text as it is');
  t.equal(render('note: {{input.note}}'), 'note: {{steps.get.output}}');
  t.equal(render('{{input.attack}}'), "' || input.id || '", 'quotes in data do not break out of anything');
  const cache = new TemplateCache();
  t.same(cache.renderValue({ a: '{{input.note}}', b: ['{{input.attack}}'] }, scope), { a: '{{steps.get.output}}', b: ["' || input.id || '"] });
});

t.test('rendering a JSON value renders every string, keeps keys and other values', async (t) => {
  const cache = new TemplateCache();
  const out = cache.renderValue({ id: '{{input.id}}', contact: '{{steps.get.output}}', n: 1, flag: false, none: null, list: ['{{steps.get.output.seats}}', 'x'], '{{input.id}}': 'k' }, scope);
  t.same(out, { id: 'c-1', contact, n: 1, flag: false, none: null, list: [12, 'x'], '{{input.id}}': 'k' });
  const proto = cache.renderValue(JSON.parse('{"__proto__": "{{input.id}}"}') as JsonValue, scope) as Record<string, unknown>;
  t.ok(Object.hasOwn(proto, '__proto__'), 'a "__proto__" key stays an own property');
  t.equal(Object.getPrototypeOf(proto), Object.prototype);
  t.equal(cache.get('{{input.id}}'), cache.get('{{input.id}}'), 'compiled once');
});

t.test('template syntax errors name the position', async (t) => {
  for (const [source, at] of [['{{input.id', 0], ['x {{ }}', 4], ['{{input.id ==}}', 13], ['a {{b}}', 4], ["{{'open}}", 0]] as const) {
    const error = t.throws(() => compileTemplate(source), TemplateSyntaxError, source) as unknown as TemplateSyntaxError;
    t.equal(error.at, at, `${source} at ${at}`);
  }
});

t.test('property: {{input}} returns the input unchanged; embedded, it is its text', async (t) => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const s: FlowScope = { input: value as JsonValue, outputs: new Map() };
      const whole = renderCompiled(compileTemplate('{{input}}'), s);
      const embedded = renderCompiled(compileTemplate('<{{input}}>'), s);
      return JSON.stringify(whole) === JSON.stringify(value ?? null) && embedded === `<${textOf(value as JsonValue)}>`;
    }),
    { numRuns: 500 },
  );
  t.pass('held for 500 generated values');
});
