// Guards who a tool call runs as (SPEC caller credentials rules 3-6): the full decision table, narrowing, field stripping.
import t from 'tap';
import { callerCredentialsSchema, normalizeCallerCredentials } from '../../../runtime/vault/caller-credentials.schema.js';
import {
  IDENTITY_BINDINGS,
  decideIdentity,
  decideIdentityForEntry,
  narrowCredentials,
  planTargetIdentities,
  stripUndeclaredFields,
  type IdentityBinding,
  type IdentityDecision,
  type IdentityDecisionInput,
} from '../../../runtime/vault/identity-policy.js';

const CALLER: IdentityDecision = { runAs: 'caller' };
const ORG: IdentityDecision = { runAs: 'organization' };
const REFUSE: IdentityDecision = { refuse: 'CALLER_CREDENTIALS_REQUIRED' };

type Row = [binding: IdentityBinding, entry: 'none' | 'entry', fallbackAllowed: boolean | undefined, credentialSent: boolean, expected: IdentityDecision];

// Written out by hand (not derived from the implementation) so the test states the rules.
// service: caller material is never delivered (rule 6 narrows to caller-bound integrations), nothing to fall back from.
// caller bindings: a sent credential runs as the caller; with none sent, caller_required or fallbackAllowed:false refuses.
const TABLE: Row[] = [
  ['service', 'none', undefined, false, ORG],
  ['service', 'entry', undefined, false, ORG],
  ['service', 'entry', undefined, true, ORG],
  ['service', 'entry', true, false, ORG],
  ['service', 'entry', true, true, ORG],
  ['service', 'entry', false, false, ORG],
  ['service', 'entry', false, true, ORG],
  ['caller_preferred', 'none', undefined, false, ORG],
  ['caller_preferred', 'entry', undefined, false, ORG],
  ['caller_preferred', 'entry', undefined, true, CALLER],
  ['caller_preferred', 'entry', true, false, ORG],
  ['caller_preferred', 'entry', true, true, CALLER],
  ['caller_preferred', 'entry', false, false, REFUSE],
  ['caller_preferred', 'entry', false, true, CALLER],
  ['caller_required', 'none', undefined, false, REFUSE],
  ['caller_required', 'entry', undefined, false, REFUSE],
  ['caller_required', 'entry', undefined, true, CALLER],
  ['caller_required', 'entry', true, false, REFUSE],
  ['caller_required', 'entry', true, true, CALLER],
  ['caller_required', 'entry', false, false, REFUSE],
  ['caller_required', 'entry', false, true, CALLER],
];

t.test('decision table: every binding x entry x fallbackAllowed x credentialSent combination (rule 5)', async (t) => {
  const expectedKeys = new Set<string>();
  for (const binding of IDENTITY_BINDINGS) {
    expectedKeys.add(`${binding}|none|undefined|false`);
    for (const fallbackAllowed of [undefined, true, false]) {
      for (const credentialSent of [false, true]) expectedKeys.add(`${binding}|entry|${fallbackAllowed}|${credentialSent}`);
    }
  }
  const tableKeys = TABLE.map(([b, e, f, c]) => `${b}|${e}|${f}|${c}`);
  t.same(new Set(tableKeys), expectedKeys, 'the table lists every representable combination');
  t.equal(tableKeys.length, expectedKeys.size, 'and each exactly once');

  for (const [binding, entry, fallbackAllowed, credentialSent, expected] of TABLE) {
    const input: IdentityDecisionInput = entry === 'none' ? { binding } : { binding, entry: { fallbackAllowed, credentialSent } };
    t.same(decideIdentity(input), expected, `${binding}, ${entry}, fallbackAllowed=${fallbackAllowed}, sent=${credentialSent}`);
  }
});

t.test('decideIdentityForEntry reads material and fallbackAllowed from a validated entry', async (t) => {
  const parse = (entry: unknown) => callerCredentialsSchema.parse({ integrations: { x: entry } }).integrations.x;
  t.same(decideIdentityForEntry('caller_required', parse({ token: 't' })), CALLER, 'token counts as sent');
  t.same(decideIdentityForEntry('caller_required', parse({ fields: { a: 'b' } })), CALLER, 'fields count as sent');
  t.same(decideIdentityForEntry('caller_preferred', parse({ fallbackAllowed: false })), REFUSE, 'only fallbackAllowed:false fails (rule 4)');
  t.same(decideIdentityForEntry('caller_preferred', parse({})), ORG, '{} equals omission');
  t.same(decideIdentityForEntry('caller_required', undefined), REFUSE, 'caller_required cannot be relaxed');
  t.same(decideIdentityForEntry('service', parse({ token: 't', fallbackAllowed: false })), ORG);
});

const supplied = normalizeCallerCredentials(
  callerCredentialsSchema.parse({
    integrations: {
      github: { token: 'gh' },
      crm: { fields: { apiKey: 'k' } },
      slack: { token: 'sl' },
      jira: { fallbackAllowed: false },
      ignored: {},
    },
  }),
);

t.test('narrowCredentials keeps only caller-bound integrations and reports the rest by id (rule 6, fire rule 5)', async (t) => {
  const before = JSON.stringify(supplied);
  const narrowed = narrowCredentials(supplied, [
    { integrationId: 'github', identityMode: 'caller_required' },
    { integrationId: 'crm', identityMode: 'caller_preferred' },
    { integrationId: 'slack', identityMode: 'service' },
    { integrationId: 'email', identityMode: 'caller_preferred' },
  ]);
  t.same(Object.keys(narrowed.credentials.integrations).sort(), ['crm', 'github']);
  t.same(narrowed.credentials.integrations.github, { token: 'gh', fallbackAllowed: true });
  t.same(narrowed.unusedIntegrationIds, ['jira', 'slack'], 'service-bound and unbound entries are supplied-but-unused; {} was never supplied');
  t.equal(JSON.stringify(supplied), before, 'input untouched');
  t.same(narrowCredentials(supplied, []).unusedIntegrationIds, ['crm', 'github', 'jira', 'slack']);
});

t.test('planTargetIdentities decides every binding and lists refusals for the start-time check (fire rule 4, rule 6)', async (t) => {
  const plan = planTargetIdentities(
    [
      { integrationId: 'github', identityMode: 'caller_required' },
      { integrationId: 'jira', identityMode: 'caller_preferred' },
      { integrationId: 'slack', identityMode: 'service' },
      { integrationId: 'email', identityMode: 'caller_required' },
      { integrationId: 'crm', identityMode: 'caller_preferred' },
      { integrationId: 'wiki', identityMode: 'caller_preferred' },
    ],
    supplied,
  );
  t.same(Object.fromEntries(plan.decisions), {
    github: CALLER,
    jira: REFUSE,
    slack: ORG,
    email: REFUSE,
    crm: CALLER,
    wiki: ORG,
  });
  t.same(plan.refusedIntegrationIds, ['email', 'jira']);
  t.same(planTargetIdentities([{ integrationId: 'github', identityMode: 'caller_required' }], { integrations: {} }).refusedIntegrationIds, ['github'], 'scheduled/event firings carry no credentials (fire rule 7)');
});

t.test('a repeated binding resolves to the strictest mode', async (t) => {
  const bindings = [
    { integrationId: 'github', identityMode: 'caller_required' as const },
    { integrationId: 'github', identityMode: 'service' as const },
  ];
  t.same(planTargetIdentities(bindings, { integrations: {} }).refusedIntegrationIds, ['github']);
  t.same(narrowCredentials(supplied, bindings).unusedIntegrationIds, ['crm', 'jira', 'slack']);
});

t.test('stripUndeclaredFields removes names the integration does not declare (rule 3)', async (t) => {
  const entry = { token: 'tok', fields: { apiKey: 'k', region: 'eu', extra: 'x' }, fallbackAllowed: false };
  const stripped = stripUndeclaredFields(entry, ['apiKey', 'region', 'unused']);
  t.same(stripped.entry, { token: 'tok', fields: { apiKey: 'k', region: 'eu' }, fallbackAllowed: false });
  t.same(stripped.removedFieldNames, ['extra']);
  t.same(entry.fields, { apiKey: 'k', region: 'eu', extra: 'x' }, 'input untouched');

  const none = stripUndeclaredFields({ fields: { b: '1', a: '2' }, fallbackAllowed: true }, new Set<string>());
  t.same(none.entry, { fallbackAllowed: true }, 'no empty fields object is produced');
  t.same(none.removedFieldNames, ['a', 'b']);

  const tokenOnly = { token: 'tok', fallbackAllowed: true };
  t.equal(stripUndeclaredFields(tokenOnly, ['a']).entry, tokenOnly, 'nothing to strip');
});

t.test('a credential sent only under undeclared names still runs as the caller, never silently as the organization', async (t) => {
  const entry = callerCredentialsSchema.parse({ integrations: { crm: { fields: { misspelt: 'k' } } } }).integrations.crm;
  t.same(decideIdentityForEntry('caller_preferred', entry), CALLER, 'decided on what was sent');
  t.same(stripUndeclaredFields(entry, ['apiKey']).entry, { fallbackAllowed: true }, 'and no undeclared material reaches the integration');
});
