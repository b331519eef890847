// The typed HTTP client: openapi-fetch over the types openapi-typescript generated from the OpenAPI document.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type SwitchyardClient = Client<paths>;

export interface SwitchyardClientOptions extends Omit<ClientOptions, 'baseUrl' | 'headers'> {
  /** Where the service listens, e.g. `http://127.0.0.1:8080` (no trailing `/api/v1`: paths carry it). */
  baseUrl: string;
  /** A bearer credential sent on every request: `sv_` key, `svu_` token, `svp_` partner key or `svt_` lease. */
  token?: string;
  /** Sent on every request (e.g. `X-Service-Subject` for a partner's tenant calls); `token` wins over an Authorization here. */
  headers?: Record<string, string>;
}

/** `client.GET('/api/v1/agents/sessions/{sessionId}', { params: { path: { sessionId } } })`, typed end to end. */
export function createSwitchyardClient({ baseUrl, token, headers = {}, ...options }: SwitchyardClientOptions): SwitchyardClient {
  const merged = Object.fromEntries(Object.entries(headers).filter(([name]) => token === undefined || name.toLowerCase() !== 'authorization'));
  if (token !== undefined) merged.authorization = `Bearer ${token}`;
  return createClient<paths>({ ...options, baseUrl: baseUrl.replace(/\/+$/, ''), headers: merged });
}

type Schemas = components['schemas'];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
export type ErrorCode = ErrorEnvelope['error']['code'];
export type SessionView = Schemas['SessionView'];
export type SessionEvent = Schemas['SessionEvent'];
export type SessionEventEnvelope = Schemas['SessionEventEnvelope'];
export type RunCompletedWebhook = Schemas['RunCompletedWebhook'];

/** A non-2xx answer, with the service's error envelope when it sent one. */
export class SwitchyardHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorEnvelope | undefined,
  ) {
    super(body ? `${status} ${body.error.code}: ${body.error.message}` : `HTTP ${status}`);
    this.name = 'SwitchyardHttpError';
  }

  get code(): ErrorCode | undefined {
    return this.body?.error.code;
  }

  static async of(response: Response): Promise<SwitchyardHttpError> {
    const text = await response.text().catch(() => '');
    let body: ErrorEnvelope | undefined;
    try {
      const parsed = JSON.parse(text) as Partial<ErrorEnvelope>;
      if (typeof parsed.error?.code === 'string') body = parsed as ErrorEnvelope;
    } catch {
      body = undefined;
    }
    return new SwitchyardHttpError(response.status, body);
  }
}
