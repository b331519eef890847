// The console's only way to the service: same-origin calls to the public HTTP API, errors as the spec's envelope.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A JSON call with the console cookie; a non-2xx answer throws its `{ error: { code, message } }` as an ApiError. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The service cannot be reached. Check your connection and try again.');
  }
  if (response.status === 204) return undefined as T;
  const json = await response.json().catch(() => null);
  if (!response.ok) {
    const error = json?.error ?? {};
    throw new ApiError(response.status, error.code ?? 'INTERNAL', error.message ?? `The service answered ${response.status}.`);
  }
  return json as T;
}

export interface Me {
  userId: string;
  orgId: string;
  name: string;
  email: string;
}

export interface SessionSummary {
  sessionId: string;
  automationId: string;
  title: string | null;
  status: string;
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MessageView {
  messageId: string;
  role: 'user' | 'assistant';
  text: string;
  createdAt: string;
}

export interface ToolCallView {
  toolCallId: string;
  toolName: string;
  args: unknown;
  status: string;
  identity: 'caller' | 'organization' | null;
  errorCode: string | null;
}

export interface SessionView extends SessionSummary {
  latestTurn: { executionId: string; status: string; errorCode: string | null } | null;
  messages: MessageView[];
  toolCalls: ToolCallView[];
  files: Array<{ fileId: string; name: string; mediaType: string; sizeBytes: number }>;
}
