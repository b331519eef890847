// Owns the syntax of the Setup's `model` string: `builtin:procedure`, `openai:<m>`, `anthropic:<m>`, `openai-compatible:<name>/<m>`.
import { ModelError } from './model-error.js';

export type ModelRef =
  | { provider: 'builtin'; model: 'procedure' }
  | { provider: 'openai'; model: string }
  | { provider: 'anthropic'; model: string }
  /** `endpoint` is the configured server's name (`ollama`, `vllm`, ...); `model` may itself contain `/` or `:`. */
  | { provider: 'openai-compatible'; endpoint: string; model: string };

export const BUILTIN_PROCEDURE_MODEL = 'builtin:procedure';

const ENDPOINT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const MODEL_ID = /^\S{1,256}$/;

/**
 * Parses without looking at configuration, so the publish verifier can reject a typo without knowing
 * which providers this deployment has keys for. Throws ModelError('MODEL_UNKNOWN').
 */
export function parseModelString(value: string): ModelRef {
  const text = value.trim();
  const colon = text.indexOf(':');
  const prefix = colon < 0 ? text : text.slice(0, colon);
  const rest = colon < 0 ? '' : text.slice(colon + 1);
  const unknown = (why: string) =>
    new ModelError('MODEL_UNKNOWN', `Model "${text.slice(0, 300)}" is not usable: ${why}.`);

  switch (prefix) {
    case 'builtin':
      if (rest === 'procedure') return { provider: 'builtin', model: 'procedure' };
      throw unknown('the only built-in model is "builtin:procedure"');
    case 'openai':
    case 'anthropic':
      if (!MODEL_ID.test(rest)) throw unknown(`expected "${prefix}:<model id>"`);
      return { provider: prefix, model: rest };
    case 'openai-compatible': {
      const slash = rest.indexOf('/');
      const endpoint = slash < 0 ? '' : rest.slice(0, slash);
      const model = slash < 0 ? '' : rest.slice(slash + 1);
      if (!ENDPOINT_NAME.test(endpoint) || !MODEL_ID.test(model)) {
        throw unknown('expected "openai-compatible:<name>/<model id>" (name: letters, digits, "_" or "-")');
      }
      return { provider: 'openai-compatible', endpoint, model };
    }
    default:
      throw unknown('known prefixes are "builtin:", "openai:", "anthropic:" and "openai-compatible:"');
  }
}

/** `my-ollama` -> `MY_OLLAMA`: the infix of its SWITCHYARD_OPENAI_COMPATIBLE_<NAME>_* variables. */
export function endpointEnvName(endpoint: string): string {
  return endpoint.toUpperCase().replaceAll('-', '_');
}
