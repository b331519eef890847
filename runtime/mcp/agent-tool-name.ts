// The MCP tool name of an agent: a slug of its name plus a suffix of its id, at most 64 of [a-zA-Z0-9_-].
/*
 * 64 characters and that alphabet satisfy every MCP client we know of (several model APIs cap function names at
 * 64). The id suffix keeps two agents with the same name apart and keeps the name stable while the agent keeps its
 * name; a renamed agent gets a new tool name (clients reread tools/list). The last 12 hex digits of a UUID (v7 or
 * v4) are random bits, so two agents of one organization sharing a suffix is not a practical concern.
 */
import type { Automation } from '../../storage/records/automations.js';

export const TOOL_NAME_MAX_LENGTH = 64;
const SUFFIX_LENGTH = 12;
const SLUG_MAX_LENGTH = TOOL_NAME_MAX_LENGTH - SUFFIX_LENGTH - 1;

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export function slugOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/_+$/, '');
  return slug === '' ? 'agent' : slug;
}

export function toolNameOf(automation: Pick<Automation, 'id' | 'name'>): string {
  const suffix = automation.id.replace(/-/g, '').slice(-SUFFIX_LENGTH).toLowerCase();
  return `${slugOf(automation.name)}_${suffix}`;
}
