// Flows from their JSON definition (issue 13 item 6): create, read, add a version, publish; edit_automation in the domain.
import type { Services } from '../../runtime/services.js';
import type { Route } from '../types.js';
import { manageErrors, manageRoute } from './manage-route.js';
import { FlowAnswer, FlowCreateBody, FlowPublishBody, FlowReadAnswer, FlowVersionAnswer, FlowVersionBody } from './org-manage.schemas.js';

const BASE = '/api/v1/flows';
const doc = { tags: ['authoring'] };
const invalid = { 400: { description: 'VALIDATION: the body\'s shape' }, 422: { description: 'VALIDATION: the definition\'s problems (unknown tools, template references), details.issues' } };

export const flowsManageRoutes: Route<Services>[] = [
  manageRoute({
    method: 'POST',
    path: BASE,
    doc: {
      ...doc,
      summary: 'Create a flow from its definition (checked like a manifest\'s flow); stored as version 1, published at once with publish: true.',
      operationId: 'createFlow',
      body: FlowCreateBody,
      responses: { 201: { description: 'the flow', schema: FlowAnswer }, ...manageErrors(invalid) },
    },
    handler: async ({ caller, body }, services) => ({ status: 201, body: { flow: await services.management.flows.create(caller, body) } }),
  }),
  manageRoute({
    method: 'GET',
    path: `${BASE}/:flowId`,
    doc: { ...doc, summary: 'A flow with its latest version\'s definition.', operationId: 'readFlow', responses: { 200: { description: 'the flow', schema: FlowReadAnswer }, ...manageErrors() } },
    async handler({ caller, params }, services) {
      const { definition, ...flow } = await services.management.flows.read(caller, params.flowId ?? '');
      return { status: 200, body: { flow, definition } };
    },
  }),
  manageRoute({
    method: 'POST',
    path: `${BASE}/:flowId/versions`,
    doc: {
      ...doc,
      summary: 'Store a new immutable version (none when it equals the latest); publish: true also serves it.',
      operationId: 'addFlowVersion',
      body: FlowVersionBody,
      responses: { 200: { description: 'the flow; created says whether a version was added', schema: FlowVersionAnswer }, ...manageErrors(invalid) },
    },
    async handler({ caller, body, params }, services) {
      const { created, ...flow } = await services.management.flows.addVersion(caller, params.flowId ?? '', body);
      return { status: 200, body: { flow, created } };
    },
  }),
  manageRoute({
    method: 'POST',
    path: `${BASE}/:flowId/publish`,
    doc: {
      ...doc,
      summary: 'Serve a stored version (also an earlier one: rolling back is publishing it again).',
      operationId: 'publishFlow',
      body: FlowPublishBody,
      responses: { 200: { description: 'the flow', schema: FlowAnswer }, ...manageErrors({ 400: { description: 'VALIDATION: also a version that does not exist' } }) },
    },
    handler: async ({ caller, body, params }, services) => ({ status: 200, body: { flow: await services.management.flows.publish(caller, params.flowId ?? '', body) } }),
  }),
];
