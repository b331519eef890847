// What an Agent subscriber is told when a trigger fires (SPEC Trigger firing rule 2): input.prompt, else the payload as text.

/** SPEC Limits: an agent message is 1–8,000 characters once trimmed. */
export const AGENT_MESSAGE_MAX = 8_000;

export type AgentMessage = { readonly message: string } | { readonly refusal: string };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A non-empty string `input.prompt` is the message, verbatim but trimmed; longer than an agent message may be,
 * it is refused for this subscriber (a silently cut prompt would run a different instruction). Anything else
 * renders the payload.
 */
export function agentMessageFor(triggerName: string, input: Record<string, unknown>): AgentMessage {
  const prompt = input.prompt;
  if (typeof prompt === 'string' && prompt.trim() !== '') {
    const trimmed = prompt.trim();
    if (trimmed.length > AGENT_MESSAGE_MAX) return { refusal: `input.prompt must be at most ${AGENT_MESSAGE_MAX} characters once trimmed.` };
    return { message: trimmed };
  }
  return { message: renderPayload(triggerName, input) };
}

/**
 * The payload as natural-language text: one `- path: value` line per leaf, nested objects as dotted paths.
 * Those lines are also what the built-in procedure model reads tool arguments from (runtime/models/procedure-args.ts),
 * so a subscriber agent can act on a plain `{ "id": "c-1" }` payload. Long payloads are cut at the message limit.
 */
export function renderPayload(triggerName: string, input: Record<string, unknown>): string {
  const lines: string[] = [];
  flatten(input, '', lines);
  const name = JSON.stringify(triggerName);
  if (lines.length === 0) return `The trigger ${name} fired with no input.`;
  const text = [`The trigger ${name} fired with this input:`, ...lines].join('\n');
  return text.length <= AGENT_MESSAGE_MAX ? text : `${text.slice(0, AGENT_MESSAGE_MAX - 1)}…`;
}

function flatten(value: Record<string, unknown>, prefix: string, lines: string[]): void {
  for (const [key, item] of Object.entries(value)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (isPlainObject(item) && Object.keys(item).length > 0) flatten(item, path, lines);
    else lines.push(`- ${path}: ${leaf(item)}`);
  }
}

function leaf(value: unknown): string {
  // Strings stay bare unless they would break the one-line shape; everything else is its JSON.
  if (typeof value === 'string') return /[\r\n]/.test(value) || value.trim() !== value || value === '' ? JSON.stringify(value) : value;
  return JSON.stringify(value) ?? 'null';
}
