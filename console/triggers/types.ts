// The trigger, Run history and API key shapes of the public API, from the generated OpenAPI client.
import { ApiError } from '../api';
import type { components, operations } from '../../http/client/schema';

type Ok<O extends keyof operations, S extends number = 200> = operations[O]['responses'] extends Record<S, { content: { 'application/json': infer B } }> ? B : never;

export type TriggerPage = Ok<'listTriggers'>;
export type Trigger = TriggerPage['triggers'][number];
export type TriggerDetail = Ok<'getTrigger'>;
export type TriggerChoices = Ok<'getTriggerChoices'>;
export type EventSource = TriggerChoices['eventSources'][number];
export type RunPage = Ok<'listTriggerRuns'>;
export type Run = RunPage['runs'][number];
export type CreateTriggerBody = operations['createTrigger']['requestBody']['content']['application/json'];
export type JsonValue = components['schemas']['JsonValue'];
export type FilterOperator = NonNullable<Extract<CreateTriggerBody, { type: 'event' }>['eventFilter']>['operator'];
export type CreatedTrigger = Ok<'createTrigger', 201>;
export type ApiKeyPage = Ok<'listApiKeys'>;
export type ApiKey = ApiKeyPage['apiKeys'][number];
export type CreatedApiKey = Ok<'createApiKey', 201>;

/** A schedule trigger's config as the API reads it (config is an open object in the document). */
export interface ScheduleConfig {
  cron: string;
  timezone: string | null;
  input: Record<string, unknown>;
  nextRunAt: string | null;
}
export interface EventConfig {
  sourceIntegrationId: string;
  connectionId: string;
  eventType: string;
  eventFilter: { field: string; operator: string; value: unknown } | null;
  hasEndpointSecret: boolean;
}

/** An API failure as one sentence, with the fields a VALIDATION answer names (`issues: [{ path, message }]`). */
export function explain(error: unknown): string {
  if (!(error instanceof ApiError)) return String(error);
  const issues = (error.details as { issues?: Array<{ path?: string; message?: string }> } | undefined)?.issues ?? [];
  const named = issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).filter(Boolean);
  return named.length > 0 ? `${error.message} (${named.join('; ')})` : error.message;
}

export const TYPE_LABEL: Record<Trigger['type'], string> = { schedule: 'Schedule', api: 'API', event: 'Event' };
