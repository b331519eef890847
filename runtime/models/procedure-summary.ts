// Owns builtin:procedure's closing text: which tools ran, their key facts as compact JSON, failures and skipped references.
import type { ToolCallRequest, ToolResult } from './model.js';

const FACTS_LIMIT = 600;
const STRING_LIMIT = 120;

/**
 * Compact JSON of a tool output, so callers can read results from the answer. An output too large to
 * quote keeps its top-level scalar fields (ids, statuses, amounts: the usual key facts), still valid
 * JSON; only when even that is too long is the text cut.
 */
export function keyFacts(output: unknown): string {
  const full = JSON.stringify(output) ?? 'null';
  if (full.length <= FACTS_LIMIT) return full;
  if (typeof output === 'object' && output !== null && !Array.isArray(output)) {
    const scalars: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(output)) {
      if (typeof value === 'string') scalars[key] = value.length > STRING_LIMIT ? `${value.slice(0, STRING_LIMIT)}…` : value;
      else if (value === null || typeof value === 'number' || typeof value === 'boolean') scalars[key] = value;
    }
    const reduced = JSON.stringify(scalars);
    if (reduced.length <= FACTS_LIMIT && reduced !== '{}') return reduced;
  }
  return `${full.slice(0, FACTS_LIMIT - 1)}…`;
}

export interface CallOutcome {
  call: ToolCallRequest;
  /** Absent when the engine stepped again without answering the call (it should not). */
  result?: ToolResult;
}

export function summarizeOutcomes(outcomes: readonly CallOutcome[], skipped: readonly string[]): string {
  const failed = outcomes.filter((outcome) => outcome.result && !outcome.result.ok).length;
  const lines = [
    outcomes.length === 0
      ? 'No tools were called.'
      : `Called ${outcomes.length} tool${outcomes.length === 1 ? '' : 's'}${failed ? `, ${failed} failed` : ''}.`,
  ];
  for (const { call, result } of outcomes) {
    if (!result) lines.push(`${call.toolName}: no result.`);
    else if (result.ok) lines.push(`${call.toolName}: ${keyFacts(result.output)}`);
    else lines.push(`${call.toolName} failed: ${result.error.code} (${result.error.message})`);
  }
  for (const wireId of skipped) lines.push(`Skipped #${wireId}: not available to this agent.`);
  return lines.join('\n');
}
