// An organization's connections (issue 13 item 6): list, add, rotate, remove; secrets sealed by the vault, never returned.
import type { Services } from '../../runtime/services.js';
import type { Route } from '../types.js';
import { manageErrors, manageRoute } from './manage-route.js';
import { ConnectionAnswer, ConnectionBody, ConnectionListSchema, RotateBody } from './org-manage.schemas.js';

const BASE = '/api/v1/org/connections';
const doc = { tags: ['organization'] };

export const connectionsManageRoutes: Route<Services>[] = [
  manageRoute({
    method: 'GET',
    path: BASE,
    doc: { ...doc, summary: 'The organization\'s connections (which integration, which domain, whether material is stored); never the material.', operationId: 'listConnections', responses: { 200: { description: 'connections', schema: ConnectionListSchema }, ...manageErrors() } },
    handler: async ({ caller }, services) => ({ status: 200, body: { connections: await services.management.connections.list(caller) } }),
  }),
  manageRoute({
    method: 'POST',
    path: BASE,
    doc: {
      ...doc,
      summary: 'Add a connection to an integration with its secret material (token or fields), sealed at rest by the vault.',
      operationId: 'addConnection',
      body: ConnectionBody,
      responses: { 201: { description: 'the connection (without its material)', schema: ConnectionAnswer }, ...manageErrors({ 400: { description: 'VALIDATION: also an unknown integration' } }) },
    },
    handler: async ({ caller, body }, services) => ({ status: 201, body: { connection: await services.management.connections.add(caller, body) } }),
  }),
  manageRoute({
    method: 'POST',
    path: `${BASE}/:connectionId/rotate`,
    doc: {
      ...doc,
      summary: 'Replace a connection\'s secret material; the next tool call uses the new material.',
      operationId: 'rotateConnection',
      body: RotateBody,
      responses: { 200: { description: 'the connection (without its material)', schema: ConnectionAnswer }, ...manageErrors({ 400: { description: 'VALIDATION' } }) },
    },
    handler: async ({ caller, body, params }, services) => ({ status: 200, body: { connection: await services.management.connections.rotate(caller, params.connectionId ?? '', body) } }),
  }),
  manageRoute({
    method: 'DELETE',
    path: `${BASE}/:connectionId`,
    doc: { ...doc, summary: 'Remove a connection and its sealed material.', operationId: 'removeConnection', responses: { 204: { description: 'removed' }, ...manageErrors() } },
    async handler({ caller, params }, services) {
      await services.management.connections.remove(caller, params.connectionId ?? '');
      return { status: 204 };
    },
  }),
];
