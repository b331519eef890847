// Model step metrics (calls, tokens, latency by provider) and a span per step, by wrapping the model port.
import { Counter, Histogram, type Registry } from 'prom-client';
import { isModelError, type LanguageModelPort, type StepChunk } from '../models/index.js';
import { WORK_SECONDS } from './buckets.js';
import { failSpan, SpanKind, type Tracing } from './tracing.js';

/** `openai:gpt-4.1` -> `openai`; `openai-compatible:ollama/llama3` -> `openai-compatible`: a bounded label. */
export const providerOf = (modelId: string): string => modelId.split(':')[0] || 'unknown';

export function createModelSignals(registry: Registry, tracing: Tracing) {
  const calls = new Counter({ name: 'switchyard_model_calls_total', help: 'Model steps by provider and outcome (ok, or the ModelError reason).', labelNames: ['provider', 'outcome'], registers: [registry] });
  const tokens = new Counter({ name: 'switchyard_model_tokens_total', help: 'Tokens reported by providers, by direction (input, output).', labelNames: ['provider', 'direction'], registers: [registry] });
  const seconds = new Histogram({ name: 'switchyard_model_call_duration_seconds', help: 'Model step time (streamed to the end) by provider.', labelNames: ['provider'], buckets: WORK_SECONDS, registers: [registry] });

  /** The same port, observed: one `model.step` span and one count per step, whatever the provider. */
  return function observeModel(port: LanguageModelPort): LanguageModelPort {
    const provider = providerOf(port.id);
    return {
      id: port.id,
      async *step(input, signal): AsyncIterable<StepChunk> {
        const span = tracing.startSpan('model.step', { kind: SpanKind.CLIENT, attributes: { 'gen_ai.system': provider, 'gen_ai.request.model': port.id, 'switchyard.model.tools': input.tools.length } });
        const started = performance.now();
        let outcome = 'ok';
        try {
          for await (const chunk of port.step(input, signal)) {
            if (chunk.type === 'finish') {
              tokens.inc({ provider, direction: 'input' }, chunk.usage.inputTokens);
              tokens.inc({ provider, direction: 'output' }, chunk.usage.outputTokens);
              span.setAttributes({ 'gen_ai.usage.input_tokens': chunk.usage.inputTokens, 'gen_ai.usage.output_tokens': chunk.usage.outputTokens, 'gen_ai.response.finish_reasons': [chunk.reason] });
            }
            yield chunk;
          }
        } catch (error) {
          outcome = isModelError(error) ? error.reason : 'ERROR';
          failSpan(span, outcome);
          throw error;
        } finally {
          calls.inc({ provider, outcome });
          seconds.observe({ provider }, (performance.now() - started) / 1000);
          span.end();
        }
      },
    };
  };
}
