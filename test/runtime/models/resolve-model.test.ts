// Guards model selection by the Setup's `model` string and the environment contract (runtime/models/README.md).
import t from 'tap';
import { loadModelConfig } from '../../../runtime/models/model-config.js';
import { isModelError, type ModelErrorReason } from '../../../runtime/models/model-error.js';
import { parseModelString } from '../../../runtime/models/model-string.js';
import { resolveModel } from '../../../runtime/models/resolve-model.js';

function reasonOf(fn: () => unknown): ModelErrorReason | string {
  try {
    fn();
    return 'no error';
  } catch (error) {
    return isModelError(error) ? error.reason : `untyped: ${String(error)}`;
  }
}

t.test('parses every supported model string form', async (t) => {
  t.same(parseModelString('builtin:procedure'), { provider: 'builtin', model: 'procedure' });
  t.same(parseModelString('  openai:gpt-4.1-mini '), { provider: 'openai', model: 'gpt-4.1-mini' });
  t.same(parseModelString('anthropic:claude-sonnet-4-5'), { provider: 'anthropic', model: 'claude-sonnet-4-5' });
  t.same(parseModelString('openai-compatible:vllm/meta-llama/Llama-3.1-8B'), {
    provider: 'openai-compatible',
    endpoint: 'vllm',
    model: 'meta-llama/Llama-3.1-8B',
  }, 'the endpoint ends at the first slash; model ids keep theirs');
});

t.test('unknown prefixes and malformed strings are a typed MODEL_UNKNOWN naming the problem', async (t) => {
  for (const bad of ['gpt-4', 'google:gemini', 'builtin:other', 'openai:', 'anthropic:two words', 'openai-compatible:ollama', 'openai-compatible:/m', 'openai-compatible:bad name/m']) {
    t.equal(reasonOf(() => resolveModel(bad, {})), 'MODEL_UNKNOWN', bad);
  }
  try {
    parseModelString('google:gemini');
  } catch (error) {
    t.match((error as Error).message, /Model "google:gemini" is not usable: known prefixes are/);
  }
});

t.test('a known provider without configuration is a typed PROVIDER_NOT_CONFIGURED naming the variable', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['openai:gpt-4.1', /set OPENAI_API_KEY/],
    ['anthropic:claude-sonnet-4-5', /set ANTHROPIC_API_KEY/],
    ['openai-compatible:my-ollama/llama3', /set SWITCHYARD_OPENAI_COMPATIBLE_MY_OLLAMA_BASE_URL/],
  ];
  for (const [model, message] of cases) {
    try {
      resolveModel(model, loadModelConfig({}));
      t.fail(`${model} resolved without configuration`);
    } catch (error) {
      t.ok(isModelError(error, 'PROVIDER_NOT_CONFIGURED'), model);
      t.match((error as Error).message, message);
    }
  }
});

t.test('resolves each provider from environment-shaped configuration without network access', async (t) => {
  const config = loadModelConfig({
    OPENAI_API_KEY: 'sk-a',
    ANTHROPIC_API_KEY: 'sk-ant-b',
    SWITCHYARD_OPENAI_COMPATIBLE_MY_OLLAMA_BASE_URL: 'http://127.0.0.1:11434/v1',
  });
  t.equal(resolveModel('openai:gpt-4.1', config).id, 'openai:gpt-4.1');
  t.equal(resolveModel('anthropic:claude-sonnet-4-5', config).id, 'anthropic:claude-sonnet-4-5');
  t.equal(resolveModel('openai-compatible:my-ollama/llama3.1:8b', config).id, 'openai-compatible:my-ollama/llama3.1:8b', 'name matches MY_OLLAMA');
  t.equal(resolveModel('openai-compatible:MY_OLLAMA/x', config).id, 'openai-compatible:MY_OLLAMA/x', 'case and -/_ are not significant');
});

t.test('loadModelConfig reads the documented variables, ignores blanks, and rejects malformed values at boot', async (t) => {
  t.same(
    loadModelConfig({
      OPENAI_API_KEY: ' sk-1 ',
      OPENAI_BASE_URL: 'https://gateway.example/v1',
      OPENAI_API: 'chat',
      ANTHROPIC_API_KEY: '',
      SWITCHYARD_OPENAI_COMPATIBLE_VLLM_BASE_URL: 'http://10.0.0.2:8000/v1',
      SWITCHYARD_OPENAI_COMPATIBLE_VLLM_API_KEY: 'token-v',
      SWITCHYARD_OPENAI_COMPATIBLE_LLAMA_CPP_BASE_URL: 'http://127.0.0.1:8080/v1',
      SWITCHYARD_MODEL_MAX_RETRIES: '0',
      UNRELATED: 'x',
    }),
    {
      openai: { apiKey: 'sk-1', baseURL: 'https://gateway.example/v1', api: 'chat' },
      anthropic: { apiKey: undefined, baseURL: undefined },
      openaiCompatible: {
        LLAMA_CPP: { baseURL: 'http://127.0.0.1:8080/v1' },
        VLLM: { baseURL: 'http://10.0.0.2:8000/v1', apiKey: 'token-v' },
      },
      maxRetries: 0,
    },
  );
  t.equal(reasonOf(() => loadModelConfig({ OPENAI_API: 'assistants' })), 'PROVIDER_NOT_CONFIGURED');
  t.equal(reasonOf(() => loadModelConfig({ SWITCHYARD_MODEL_MAX_RETRIES: 'many' })), 'PROVIDER_NOT_CONFIGURED');
  t.equal(reasonOf(() => loadModelConfig({ OPENAI_BASE_URL: 'ftp://x' })), 'PROVIDER_NOT_CONFIGURED');
  try {
    loadModelConfig({ ANTHROPIC_BASE_URL: 'not a url secret-token' });
  } catch (error) {
    t.notMatch((error as Error).message, 'secret-token', 'the bad value is not echoed');
  }
});

t.test('a compatible endpoint configured with an API key but no base URL is still not configured', async (t) => {
  const config = loadModelConfig({ SWITCHYARD_OPENAI_COMPATIBLE_OLLAMA_API_KEY: 'k' });
  t.equal(reasonOf(() => resolveModel('openai-compatible:ollama/llama3', config)), 'PROVIDER_NOT_CONFIGURED');
});
