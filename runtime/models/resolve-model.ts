// Owns choosing the LanguageModelPort for a Setup's `model` string from the provider configuration.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createAiSdkModel } from './ai-sdk.model.js';
import { createBuiltinProcedureModel } from './builtin-procedure.model.js';
import type { LanguageModelPort } from './model.js';
import {
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_MAX_RETRIES,
  DEFAULT_OPENAI_BASE_URL,
  assertHttpUrl,
  compatibleEndpointConfig,
  type ModelConfig,
} from './model-config.js';
import { ModelError } from './model-error.js';
import { endpointEnvName, parseModelString } from './model-string.js';

const notConfigured = (provider: string, what: string) =>
  new ModelError('PROVIDER_NOT_CONFIGURED', `Model provider "${provider}" is not configured: set ${what}.`, { provider });

/**
 * Throws ModelError: MODEL_UNKNOWN for a malformed string or unknown prefix, PROVIDER_NOT_CONFIGURED when
 * the provider's key or base URL is missing. Cheap (no network), so the engine may resolve per turn and
 * pick up a republished Setup's model. Base URLs are always passed explicitly: the SDK's own fallback to
 * OPENAI_BASE_URL / ANTHROPIC_BASE_URL would read process.env behind `config`'s back.
 */
export function resolveModel(modelString: string, config: ModelConfig = {}): LanguageModelPort {
  const ref = parseModelString(modelString);
  const id = modelString.trim();
  const maxRetries = config.maxRetries ?? DEFAULT_MAX_RETRIES;

  switch (ref.provider) {
    case 'builtin':
      return createBuiltinProcedureModel();

    case 'openai': {
      const { apiKey, baseURL = DEFAULT_OPENAI_BASE_URL, api = 'responses' } = config.openai ?? {};
      if (!apiKey) throw notConfigured('openai', 'OPENAI_API_KEY');
      assertHttpUrl(baseURL, 'OPENAI_BASE_URL');
      const openai = createOpenAI({ apiKey, baseURL });
      // The SDK's default is the Responses API; `chat` serves gateways that only speak Chat Completions.
      // store: false keeps conversations out of OpenAI's stored responses, matching Chat Completions' default.
      return api === 'chat'
        ? createAiSdkModel({ id, provider: 'openai', model: openai.chat(ref.model), maxRetries, secrets: [apiKey] })
        : createAiSdkModel({
            id,
            provider: 'openai',
            model: openai.responses(ref.model),
            maxRetries,
            secrets: [apiKey],
            providerOptions: { openai: { store: false } },
          });
    }

    case 'anthropic': {
      const { apiKey, baseURL = DEFAULT_ANTHROPIC_BASE_URL } = config.anthropic ?? {};
      if (!apiKey) throw notConfigured('anthropic', 'ANTHROPIC_API_KEY');
      assertHttpUrl(baseURL, 'ANTHROPIC_BASE_URL');
      const anthropic = createAnthropic({ apiKey, baseURL });
      return createAiSdkModel({ id, provider: 'anthropic', model: anthropic.messages(ref.model), maxRetries, secrets: [apiKey] });
    }

    case 'openai-compatible': {
      const provider = `openai-compatible:${ref.endpoint}`;
      const endpoint = compatibleEndpointConfig(config, ref.endpoint);
      const prefix = `SWITCHYARD_OPENAI_COMPATIBLE_${endpointEnvName(ref.endpoint)}`;
      if (!endpoint?.baseURL) throw notConfigured(provider, `${prefix}_BASE_URL`);
      assertHttpUrl(endpoint.baseURL, `${prefix}_BASE_URL`);
      // The API key is optional: local servers (Ollama, llama.cpp) usually take none.
      const compatible = createOpenAICompatible({
        name: ref.endpoint,
        baseURL: endpoint.baseURL,
        apiKey: endpoint.apiKey,
        includeUsage: true,
      });
      return createAiSdkModel({ id, provider, model: compatible.chatModel(ref.model), maxRetries, secrets: [endpoint.apiKey] });
    }
  }
}
