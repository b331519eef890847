// Test helper: one agent step's input (a CRM lookup) shared by the provider tests, and a collector for its chunks.
import type { LanguageModelPort, StepChunk, StepInput } from '../../../runtime/models/model.js';

export const API_KEY = 'sk-test-0123456789abcdef-SECRET';

export const firstStep: StepInput = {
  system: {
    principles: 'Never guess customer data.',
    procedure: 'Look the customer up with #crm.get_contact, then answer.',
    knowledge: [{ title: 'Tiers', body: 'Pro customers get priority support.' }],
  },
  messages: [{ role: 'user', text: 'What tier is contact c-1?' }],
  tools: [
    {
      name: 'crm.get_contact',
      description: 'Fetch one contact by id.',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
    },
  ],
};

/** The follow-up step: the engine ran the call and hands the result back. */
export const secondStep: StepInput = {
  ...firstStep,
  messages: [
    ...firstStep.messages,
    { role: 'assistant', text: 'Looking up the contact.', toolCalls: [{ toolCallId: 'call_1', toolName: 'crm.get_contact', args: { id: 'c-1' } }] },
    { role: 'tool', toolCallId: 'call_1', toolName: 'crm.get_contact', result: { ok: true, output: { id: 'c-1', tier: 'pro' } } },
  ],
};

export async function collect(
  port: LanguageModelPort,
  input: StepInput,
  options: { signal?: AbortSignal; onChunk?: (chunk: StepChunk) => void } = {},
): Promise<StepChunk[]> {
  const chunks: StepChunk[] = [];
  for await (const chunk of port.step(input, options.signal ?? new AbortController().signal)) {
    chunks.push(chunk);
    options.onChunk?.(chunk);
  }
  return chunks;
}

export async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('expected the step to fail'),
    (error: unknown) => error,
  );
}

export const textOf = (chunks: StepChunk[]) => chunks.flatMap((c) => (c.type === 'text-delta' ? [c.text] : []));
