// The served /api/v1/openapi.json passes three third-party validators and matches the committed docs/openapi.json.
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import t, { type Test } from 'tap';
import { call } from '../../helpers/http.js';
import { startTestServer } from '../../helpers/server.js';

/**
 * `redocly lint` with its `recommended` ruleset, minus three rules that flag deliberate choices:
 * - no-ambiguous-paths: `/agents/{automationId}/sessions` vs `/agents/sessions/{sessionId}` are the spec's paths;
 *   the router matches the literal `sessions` segment first.
 * - operation-4xx-response: the health probes never answer 4xx (not even 429: they skip the rate limit).
 * - no-unused-components: SessionEventEnvelope is referenced from the stream's `x-itemSchema`, which the rule skips.
 */
const REDOCLY_RULES_OFF = ['no-ambiguous-paths', 'operation-4xx-response', 'no-unused-components'];

async function servedDocument(t: Test): Promise<Record<string, unknown>> {
  const server = await startTestServer(t);
  const answer = await call(`${server.url}/api/v1/openapi.json`);
  t.equal(answer.status, 200);
  t.match(answer.headers.get('content-type'), /^application\/json/);
  return answer.json;
}

t.test('the served document is valid OpenAPI 3.1 for swagger-parser, openapi-schema-validator and redocly lint', async (t) => {
  const document = await servedDocument(t);
  t.equal(document.openapi, '3.1.0');

  // swagger-parser dereferences every $ref (a dangling one, like the old #/$defs/JsonValue, throws) and validates.
  await t.resolves(SwaggerParser.validate(structuredClone(document) as never), '@apidevtools/swagger-parser');

  const validator = new Validator();
  const result = await validator.validate(structuredClone(document));
  t.same(result.errors ?? [], [], '@seriousme/openapi-schema-validator: no errors');
  t.equal(result.valid, true);

  const config = await createConfig({ extends: ['recommended'], rules: Object.fromEntries(REDOCLY_RULES_OFF.map((rule) => [rule, 'off'])) });
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
  const described = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
  t.same(described, [], '@redocly/openapi-core (redocly lint, recommended): no errors and no warnings');
});

t.test('a dangling $ref fails the validators (the test can fail)', async (t) => {
  const document = structuredClone(await servedDocument(t)) as any;
  document.paths['/api/v1/me'].get.responses['200'].content['application/json'].schema = { $ref: '#/$defs/JsonValue' };
  await t.rejects(SwaggerParser.validate(structuredClone(document)), 'swagger-parser refuses it');
  t.equal((await new Validator().validate(document)).valid, false, 'openapi-schema-validator refuses it');
});

t.test('the committed docs/openapi.json is the served document (npm run gen:client regenerates it)', async (t) => {
  const document = await servedDocument(t);
  const committed = JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8'));
  t.same(committed, document);
});
