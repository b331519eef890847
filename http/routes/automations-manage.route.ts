// Automation management (console cookie, sv_ key or svu_ token): list agents and flows, revision history,
// rename/describe, roll the published pointer back, archive/unarchive. Reading needs a domain role; changes edit_automation.
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';
import { EmptyBody } from './authoring.schemas.js';
import { AutomationListQuery, AutomationSummary, DescribeAutomationBody, manageDoc, NextCursor, PageQuery, RevisionSummary, RollbackBody } from './manage.schemas.js';
import { managerOf } from './triggers-manage.route.js';

const BASE = '/api/v1/authoring/automations';

const route = declareRoutes(managerOf);
const doc = <D extends Parameters<typeof manageDoc>[1]>(d: D) => manageDoc('automations', d);

const EDIT_403 = { description: 'FORBIDDEN: not an editor or owner of the automation\'s domain' };
const summaryOk = (description: string) => ({ description, schema: AutomationSummary });

export const automationsManageRoutes: Route<Services>[] = [
  route({
    method: 'GET',
    path: BASE,
    doc: doc({
      operationId: 'listAutomations',
      summary: 'Agents and flows of the domains the caller is a member of, oldest first; filter by kind, domainId and archived; page with cursor.',
      query: AutomationListQuery,
      responses: {
        200: { description: 'a page of automations', schema: z.object({ automations: z.array(AutomationSummary), nextCursor: NextCursor }) },
        400: { description: 'VALIDATION: unknown query parameter, kind, domainId, archived, limit or cursor' },
      },
    }),
    async handler({ caller, query }, services) {
      return { status: 200, body: await services.manage.automations.list(caller, query) };
    },
  }),
  route({
    method: 'GET',
    path: `${BASE}/:id/revisions`,
    uuidParams: ['id'],
    doc: doc({
      operationId: 'listAutomationRevisions',
      summary: 'Revision history, newest first: an agent\'s published revisions (who, when, change note) or a flow\'s versions; `current` marks the published one.',
      query: PageQuery,
      responses: {
        200: { description: 'a page of revisions', schema: z.object({ revisions: z.array(RevisionSummary), nextCursor: NextCursor }) },
        400: { description: 'VALIDATION: unknown query parameter, limit or cursor' },
        403: { description: 'FORBIDDEN: not a member of the automation\'s domain' },
      },
    }),
    async handler({ caller, query, params }, services) {
      return { status: 200, body: await services.manage.automations.revisions(caller, params.id as string, query) };
    },
  }),
  route({
    method: 'PATCH',
    path: `${BASE}/:id`,
    uuidParams: ['id'],
    doc: doc({
      operationId: 'describeAutomation',
      summary: 'Rename an agent or flow or change its description (null clears it); no new revision, the published pointer stays.',
      body: DescribeAutomationBody,
      responses: { 200: summaryOk('the automation'), 400: { description: 'VALIDATION: unknown field, empty body, or a bound exceeded' }, 403: EDIT_403 },
    }),
    handler: async ({ caller, body, params }, services) => ({
      status: 200,
      body: await services.manage.automations.describe(caller, params.id as string, body),
    }),
  }),
  route({
    method: 'POST',
    path: `${BASE}/:id/rollback`,
    uuidParams: ['id'],
    doc: doc({
      operationId: 'rollbackAutomation',
      summary:
        'Point the published pointer at another published revision (agents) or version (flows): new sessions and runs use it; ' +
        'sessions already open keep the revision they started with.',
      body: RollbackBody,
      responses: {
        200: summaryOk('the automation'),
        400: { description: 'VALIDATION: unknown field, or revision is not a published revision/version of this automation' },
        403: EDIT_403,
        409: { description: 'CONFLICT (details.reason automation_archived): unarchive first' },
      },
    }),
    handler: async ({ caller, body, params }, services) => ({
      status: 200,
      body: await services.manage.automations.rollback(caller, params.id as string, body.revision),
    }),
  }),
  ...(['archive', 'unarchive'] as const).map((action) =>
    route({
      method: 'POST',
      path: `${BASE}/:id/${action}`,
      uuidParams: ['id'],
      allowEmptyBody: true,
      doc: doc({
        operationId: `${action}Automation`,
        summary:
          action === 'archive'
            ? 'Archive (idempotent): it runs nowhere (opening a session is 404, trigger firings skip it as NOT_PUBLISHED, MCP lists no tool) ' +
              'but keeps its revisions, sessions and subscriptions.'
            : 'Unarchive (idempotent): the published pointer it had comes back, with its trigger subscriptions.',
        body: EmptyBody,
        responses: { 200: summaryOk('the automation'), 400: { description: 'VALIDATION: the body must be empty or {}' }, 403: EDIT_403 },
      }),
      handler: async ({ caller, params }, services) => ({
        status: 200,
        body: await services.manage.automations.setArchived(caller, params.id as string, action === 'archive'),
      }),
    }),
  ),
];
