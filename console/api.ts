// The console's only way to the service: same-origin calls to the public HTTP API, errors as the spec's envelope.
import type { components, operations } from '../http/client/schema';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The envelope's `details` (e.g. VALIDATION `issues: [{ path, message }]`), for a form to point at a field. */
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** A JSON call with the console cookie (plus `headers`); a non-2xx answer throws its `{ error: { code, message } }` as an ApiError. */
export async function api<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The service cannot be reached. Check your connection and try again.');
  }
  if (response.status === 204) return undefined as T;
  const json = await response.json().catch(() => null);
  if (!response.ok) {
    const error = json?.error ?? {};
    throw new ApiError(response.status, error.code ?? 'INTERNAL', error.message ?? `The service answered ${response.status}.`, error.details);
  }
  return json as T;
}

/** The API's own types, generated from the OpenAPI document (npm run gen:client): the console cannot drift from it. */
type Schemas = components['schemas'];
export type Me = operations['getMe']['responses'][200]['content']['application/json'];
export type SessionSummary = Schemas['SessionSummary'];
export type SessionView = Schemas['SessionView'];
export type ToolCallView = SessionView['toolCalls'][number];
export type SessionEvent = Schemas['SessionEventEnvelope'];

/** A session's name in lists and headings: its title, else the tail of its id (a UUIDv7's head is its timestamp). */
export const sessionLabel = (session: { title: string | null; sessionId: string }): string => session.title ?? `Session …${session.sessionId.slice(-8)}`;

/** The approvals inbox (GET /approvals): what the signed-in person may decide, across sessions and flow runs. */
export type ApprovalInboxPage = Schemas['ApprovalInboxPage'];
export type PendingApprovalItem = ApprovalInboxPage['approvals'][number];
