import t from 'tap';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { MANIFEST_SCHEMA_PATH, renderManifestSchema } from '../../../scripts/gen-manifest-schema.js';
import { DEMO_MANIFEST_PATH, example } from './manifest-fixtures.js';

const committed = readFileSync(MANIFEST_SCHEMA_PATH, 'utf8');

t.test('docs/workspace.schema.json is what the zod schema generates (run scripts/gen-manifest-schema.ts)', async (t) => {
  t.equal(committed, renderManifestSchema(), 'stale: regenerate with `npm run docs:manifest-schema`');
});

t.test('the published JSON Schema accepts the contract example and the demo, and rejects a typo', async (t) => {
  const validate = new Ajv2020({ strict: false, allErrors: true, logger: false }).compile(JSON.parse(committed));
  t.ok(validate(example()), JSON.stringify(validate.errors));
  t.ok(validate(JSON.parse(readFileSync(DEMO_MANIFEST_PATH, 'utf8'))), JSON.stringify(validate.errors));
  const typo = example();
  typo.organizations[0].triggers[0].subscriber = typo.organizations[0].triggers[0].subscribers;
  t.notOk(validate(typo));
  t.ok(validate.errors?.some((e) => e.keyword === 'additionalProperties' || e.keyword === 'oneOf' || e.keyword === 'anyOf'));
  const badRole = example();
  badRole.organizations[0].users[0].orgRole = 'root';
  t.notOk(validate(badRole));
});
