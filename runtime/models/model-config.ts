// Owns provider configuration: the typed object resolveModel takes, and the one function that reads it from the environment.
import { ModelError } from './model-error.js';
import { endpointEnvName } from './model-string.js';

export type OpenAIApi = 'responses' | 'chat';

export interface ModelConfig {
  openai?: { apiKey?: string; baseURL?: string; api?: OpenAIApi };
  anthropic?: { apiKey?: string; baseURL?: string };
  /** Keyed by endpoint name as written in the model string (case and `-`/`_` are not significant). */
  openaiCompatible?: Record<string, { baseURL?: string; apiKey?: string }>;
  /** SDK retries of retryable provider failures (429, 5xx, network) within one step; default 2. */
  maxRetries?: number;
}

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com/v1';
export const DEFAULT_MAX_RETRIES = 2;

const COMPATIBLE_VAR = /^SWITCHYARD_OPENAI_COMPATIBLE_([A-Z0-9_]+?)_(BASE_URL|API_KEY)$/;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The only place the model layer reads the environment (runtime/models/README.md lists the variables).
 * Malformed values throw at boot rather than failing every later turn; absent ones fail only the turns
 * that need them (resolveModel -> PROVIDER_NOT_CONFIGURED).
 */
export function loadModelConfig(env: Env = process.env): ModelConfig {
  const value = (name: string) => {
    const text = env[name]?.trim();
    return text ? text : undefined;
  };
  const url = (name: string) => {
    const text = value(name);
    if (text !== undefined) assertHttpUrl(text, name);
    return text;
  };

  const api = value('OPENAI_API');
  if (api !== undefined && api !== 'responses' && api !== 'chat') {
    throw new ModelError('PROVIDER_NOT_CONFIGURED', 'OPENAI_API must be "responses" or "chat".', { provider: 'openai' });
  }
  const retries = value('SWITCHYARD_MODEL_MAX_RETRIES');
  if (retries !== undefined && !/^\d{1,2}$/.test(retries)) {
    throw new ModelError('PROVIDER_NOT_CONFIGURED', 'SWITCHYARD_MODEL_MAX_RETRIES must be an integer from 0 to 99.');
  }

  const openaiCompatible: Record<string, { baseURL?: string; apiKey?: string }> = {};
  for (const name of Object.keys(env).sort()) {
    const match = COMPATIBLE_VAR.exec(name);
    if (!match) continue;
    const entry = (openaiCompatible[match[1]] ??= {});
    if (match[2] === 'BASE_URL') entry.baseURL = url(name);
    else entry.apiKey = value(name);
  }

  return {
    openai: { apiKey: value('OPENAI_API_KEY'), baseURL: url('OPENAI_BASE_URL'), api: api as OpenAIApi | undefined },
    anthropic: { apiKey: value('ANTHROPIC_API_KEY'), baseURL: url('ANTHROPIC_BASE_URL') },
    openaiCompatible,
    maxRetries: retries === undefined ? undefined : Number(retries),
  };
}

export function compatibleEndpointConfig(config: ModelConfig, endpoint: string): { baseURL?: string; apiKey?: string } | undefined {
  const wanted = endpointEnvName(endpoint);
  const entry = Object.entries(config.openaiCompatible ?? {}).find(([name]) => endpointEnvName(name) === wanted);
  return entry?.[1];
}

export function assertHttpUrl(text: string, what: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(text);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    // The value itself is not echoed: a URL may carry credentials in its user-info part.
    throw new ModelError('PROVIDER_NOT_CONFIGURED', `${what} must be an http(s) URL.`);
  }
}
