// Trigger management (console cookie, sv_ key or svu_ token): list, read with subscribers, update, pause/resume,
// delete, add/remove subscribers. Reading needs a role in the trigger's domain; changing it edit_automation there.
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { UpdateTriggerBody } from '../../runtime/manage/trigger-update.schema.js';
import { MANAGE, mapCredential } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';
import { EmptyBody } from './authoring.schemas.js';
import { manageDoc, NextCursor, NoContent, SubscriberSummary, TriggerListQuery } from './manage.schemas.js';
import { baseUrlOf, TriggerRecord } from './triggers-admin.route.js';

const BASE = '/api/v1/triggers';

/** The person the credential acts as (membership re-read when it was checked). */
export const managerOf = mapCredential(MANAGE, (principal) => ({ userId: principal.userId, orgId: principal.orgId }));

const route = declareRoutes(managerOf);
const doc = <D extends Parameters<typeof manageDoc>[1]>(d: D) => manageDoc('triggers', d);

const Detail = z.object({ trigger: TriggerRecord, subscribers: z.array(SubscriberSummary).describe('In firing order.') });
const EDIT_403 = { description: 'FORBIDDEN: not an editor or owner of the trigger\'s domain' };
const detailOk = (description: string) => ({ description, schema: Detail });

export const triggersManageRoutes: Route<Services>[] = [
  route({
    method: 'GET',
    path: BASE,
    doc: doc({
      operationId: 'listTriggers',
      summary: 'Triggers of the domains the caller is a member of, oldest first; filter by domainId and type; page with cursor.',
      query: TriggerListQuery,
      responses: {
        200: { description: 'a page of triggers', schema: z.object({ triggers: z.array(TriggerRecord), nextCursor: NextCursor }) },
        400: { description: 'VALIDATION: unknown query parameter, limit, type, domainId or cursor' },
      },
    }),
    async handler({ caller, query, request }, services) {
      return { status: 200, body: await services.manage.triggers.list(caller, query, baseUrlOf(request, services)) };
    },
  }),
  route({
    method: 'GET',
    path: `${BASE}/:triggerId`,
    uuidParams: ['triggerId'],
    doc: doc({
      operationId: 'getTrigger',
      summary: 'One trigger with its configuration (never a secret), next scheduled run, and its subscribers in firing order.',
      responses: { 200: detailOk('the trigger'), 403: { description: 'FORBIDDEN: not a member of the trigger\'s domain' } },
    }),
    handler: async ({ caller, request, params }, services) => ({
      status: 200,
      body: await services.manage.triggers.read(caller, params.triggerId as string, baseUrlOf(request, services)),
    }),
  }),
  route({
    method: 'PATCH',
    path: `${BASE}/:triggerId`,
    uuidParams: ['triggerId'],
    doc: doc({
      operationId: 'updateTrigger',
      summary:
        'Change a trigger: name (any type); cron, timezone (null = UTC) and input (schedule: the next tick is re-armed on the new slots); ' +
        'eventFilter (event; null removes it). A field of another trigger type is a 400 naming it.',
      body: UpdateTriggerBody,
      responses: {
        200: detailOk('the changed trigger'),
        400: { description: 'VALIDATION: unknown field, empty body, a field of another trigger type, bad cron/time zone, or a filter the event type cannot match' },
        403: EDIT_403,
      },
    }),
    handler: async ({ caller, body, request, params }, services) => ({
      status: 200,
      body: await services.manage.triggers.update(caller, params.triggerId as string, body, baseUrlOf(request, services)),
    }),
  }),
  ...(['pause', 'resume'] as const).map((action) =>
    route({
      method: 'POST',
      path: `${BASE}/:triggerId/${action}`,
      uuidParams: ['triggerId'],
      allowEmptyBody: true,
      doc: doc({
        operationId: `${action}Trigger`,
        summary:
          action === 'pause'
            ? 'Pause a trigger (idempotent): fires are refused as not found, a schedule\'s pending tick is removed, events are not delivered.'
            : 'Resume a trigger (idempotent): a schedule is armed for its next slot from now (slots missed while paused are not replayed).',
        body: EmptyBody,
        responses: { 200: detailOk('the trigger'), 400: { description: 'VALIDATION: the body must be empty or {}' }, 403: EDIT_403 },
      }),
      handler: async ({ caller, request, params }, services) => ({
        status: 200,
        body: await services.manage.triggers.setActive(caller, params.triggerId as string, action === 'resume', baseUrlOf(request, services)),
      }),
    }),
  ),
  route({
    method: 'DELETE',
    path: `${BASE}/:triggerId`,
    uuidParams: ['triggerId'],
    doc: doc({
      operationId: 'deleteTrigger',
      summary: 'Delete a trigger with its subscriptions, Run history and event delivery log; a schedule\'s pending tick is removed.',
      responses: { 204: NoContent, 403: EDIT_403 },
    }),
    async handler({ caller, params }, services) {
      await services.manage.triggers.remove(caller, params.triggerId as string);
      return { status: 204 };
    },
  }),
  route({
    method: 'PUT',
    path: `${BASE}/:triggerId/subscribers/:automationId`,
    uuidParams: ['triggerId', 'automationId'],
    allowEmptyBody: true,
    doc: doc({
      operationId: 'addTriggerSubscriber',
      summary: 'Subscribe an agent or flow of the trigger\'s domain (idempotent; a new subscriber fires after the existing ones).',
      body: EmptyBody,
      responses: {
        200: detailOk('the trigger with its subscribers'),
        400: { description: 'VALIDATION: the automation is of another domain, the trigger has 100 subscribers, or a non-empty body' },
        403: EDIT_403,
        409: { description: 'CONFLICT (details.reason automation_archived): an archived automation cannot subscribe' },
      },
    }),
    handler: async ({ caller, request, params }, services) => ({
      status: 200,
      body: await services.manage.triggers.addSubscriber(caller, params.triggerId as string, params.automationId as string, baseUrlOf(request, services)),
    }),
  }),
  route({
    method: 'DELETE',
    path: `${BASE}/:triggerId/subscribers/:automationId`,
    uuidParams: ['triggerId', 'automationId'],
    doc: doc({
      operationId: 'removeTriggerSubscriber',
      summary: 'Unsubscribe an automation (idempotent for an automation of the organization that is not subscribed).',
      responses: { 200: detailOk('the trigger with its subscribers'), 403: EDIT_403 },
    }),
    handler: async ({ caller, request, params }, services) => ({
      status: 200,
      body: await services.manage.triggers.removeSubscriber(caller, params.triggerId as string, params.automationId as string, baseUrlOf(request, services)),
    }),
  }),
];
