// tools/list and tool resolution: the published agents a key owner may run, each described as one MCP tool.
/*
 * Visibility is the REST rule, not a copy of it: the organization's published agents, kept when the sessions
 * runtime's `assertCanExecute` (SPEC conversations rule 1) passes and the partner entitlement resolves enabled.
 * Another organization's agents, flows, drafts and disabled automations never appear, and a call naming one is
 * "unknown tool" exactly like a name that never existed.
 */
import type { Repositories } from '../../storage/repos/index.js';
import type { Automation } from '../../storage/records/automations.js';
import { AppError } from '../errors.js';
import { isEntitled } from '../partners/entitlements.js';
import { assertCanExecute, type Caller } from '../sessions/session-access.js';
import { agentToolInputSchema, agentToolOutputSchema } from './agent-tool-input.js';
import { toolNameOf } from './agent-tool-name.js';
import { InvalidParamsError } from './invalid-params.js';
import { decodePosition, encodePosition, type KeysetPosition } from '../paging/cursor.js';

type Repos = Pick<Repositories, 'automations' | 'entitlements' | 'sessions' | 'tenancy'>;

/** A tool as the protocol's `Tool` object; `outputSchema`, `title` and `_meta` only for 2025-06-18 sessions. */
export interface AgentTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown> & { type: 'object' };
  outputSchema?: Record<string, unknown> & { type: 'object' };
  _meta?: Record<string, unknown>;
}

export interface ToolPage {
  tools: AgentTool[];
  nextCursor?: string;
}

/** The automation id rides along in `_meta` so a client can map a tool back to the REST resources. */
export const AUTOMATION_ID_META = 'io.switchyard/automationId';

/** `assertCanExecute` as a predicate: FORBIDDEN means "not this caller's to run"; anything else is a real fault. */
async function mayExecute(repos: Repos, caller: Caller, automation: Automation): Promise<boolean> {
  try {
    await assertCanExecute(repos, caller, automation);
    return true;
  } catch (error) {
    if (error instanceof AppError && error.code === 'FORBIDDEN') return false;
    throw error;
  }
}

/** Every agent the caller may run now, in creation order (the order cursors walk). */
export async function executableAgents(repos: Repos, caller: Caller): Promise<Automation[]> {
  const agents: Automation[] = [];
  for (const automation of repos.automations.automationsOfOrganization(caller.orgId)) {
    const candidate = automation.kind === 'agent' && automation.publishedRevision !== null && isEntitled(repos, caller.orgId, automation.id);
    // assertCanExecute (sessions/session-access.ts) reads storage now: awaited, so a refusal really filters.
    if (candidate && (await mayExecute(repos, caller, automation))) agents.push(automation);
  }
  return agents;
}

/** The agent a tool name stands for, when the caller may run it; undefined otherwise (uniform "unknown tool"). */
export async function resolveAgentTool(repos: Repos, caller: Caller, name: string): Promise<Automation | undefined> {
  return (await executableAgents(repos, caller)).find((automation) => toolNameOf(automation) === name);
}

const MODERN = '2025-06-18';

export function describeAgentTool(automation: Automation, protocolVersion: string): AgentTool {
  const description =
    automation.description?.trim() ||
    `Runs the agent "${automation.name}": one conversational turn; the answer comes back as text.`;
  const tool: AgentTool = { name: toolNameOf(automation), description, inputSchema: agentToolInputSchema() };
  if (protocolVersion >= MODERN) {
    tool.title = automation.name;
    tool.outputSchema = agentToolOutputSchema();
    tool._meta = { [AUTOMATION_ID_META]: automation.id };
  }
  return tool;
}

/** The list's cursor (the last listed agent's position); one the service did not issue is MCP's invalid params. */
function decodeCursor(cursor: string): KeysetPosition {
  try {
    return decodePosition(cursor);
  } catch {
    throw new InvalidParamsError('The cursor is not valid.');
  }
}

/**
 * One page. The cursor is a position, not an offset, so an agent published or removed between pages neither
 * repeats nor hides the ones after it.
 */
export async function listAgentTools(repos: Repos, caller: Caller, options: { cursor?: string; pageSize: number; protocolVersion: string }): Promise<ToolPage> {
  let agents = await executableAgents(repos, caller);
  if (options.cursor !== undefined) {
    const { createdAt, id } = decodeCursor(options.cursor);
    agents = agents.filter((a) => a.createdAt > createdAt || (a.createdAt === createdAt && a.id > id));
  }
  const page = agents.slice(0, options.pageSize);
  const result: ToolPage = { tools: page.map((automation) => describeAgentTool(automation, options.protocolVersion)) };
  if (agents.length > page.length) result.nextCursor = encodePosition({ createdAt: page[page.length - 1]!.createdAt, id: page[page.length - 1]!.id });
  return result;
}
