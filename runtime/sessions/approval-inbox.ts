// The approvals inbox: every pending approval a person may decide, across sessions and flow runs, oldest first by cursor.
import type { Approval } from '../../storage/records/approvals.js';
import type { PortRepositories } from '../../storage/port/storage.js';
import { toIso } from '../clock.js';
import { redactCredentialMaterial } from '../events/index.js';
import type { CatalogSource } from '../turns/turn-tools.js';
import { mayDecide } from './approval-access.js';
import { decodeTuple, encodeTuple } from '../paging/cursor.js';
import { canView, type Caller } from './session-access.js';

export const INBOX_PAGE = Object.freeze({ defaultLimit: 50, maxLimit: 100 });

export interface InboxItem {
  approvalId: string;
  /** `turn` and `confirmation`: decided at the session's turn-approval route; `run`: at /approvals/runs/:runId. */
  kind: 'turn' | 'run' | 'confirmation';
  sessionId: string;
  sessionTitle: string | null;
  /** For run approvals: the flow run's id (its session id). */
  runId: string | null;
  executionId: string;
  automationId: string;
  automationName: string;
  automationKind: 'agent' | 'flow';
  domainId: string;
  toolName: string | null;
  /** The arguments as proposed (caller credential material redacted). */
  args: unknown;
  /** The gated tool's JSON Schema input, for checking edited arguments before sending them; null when unknown. */
  inputSchema: Record<string, unknown> | null;
  /** Whether `editedArgs` may be sent: turn approvals of a known tool (a run step's arguments are its flow's). */
  editable: boolean;
  requestedAt: string;
}

export interface InboxPage {
  approvals: InboxItem[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface ApprovalInbox {
  list(caller: Caller, page: { limit: number; cursor?: string }): Promise<InboxPage>;
}

/**
 * Exactly what the decide routes would accept: the session is visible to the person (SPEC conversations rule 3)
 * and they may decide under the domain's current approval policy, or initiated a user-routed call or confirmation
 * (rule 5; approval-access.ts). Read at each request, so a policy change shows at the next poll.
 */
export function createApprovalInbox(deps: { repos: PortRepositories; catalogFor: CatalogSource }): ApprovalInbox {
  const { repos } = deps;

  async function item(approval: Approval, orgId: string): Promise<InboxItem | null> {
    const session = await repos.sessions.session(approval.sessionId);
    if (session === undefined) return null;
    const automation = await repos.automations.automation(session.automationId);
    if (automation === undefined) return null;
    const tool = approval.tool === null ? undefined : (await deps.catalogFor(orgId)).findTool(approval.tool);
    const inputSchema = (tool?.tool.inputSchema as Record<string, unknown> | undefined) ?? null;
    return {
      approvalId: approval.id,
      kind: approval.kind,
      sessionId: session.id,
      sessionTitle: session.title,
      runId: approval.kind === 'run' ? session.id : null,
      executionId: approval.executionId,
      automationId: automation.id,
      automationName: automation.name,
      automationKind: automation.kind === 'flow' ? 'flow' : 'agent',
      domainId: session.domainId,
      toolName: approval.tool,
      args: redactCredentialMaterial(approval.args ?? {}),
      inputSchema,
      editable: approval.kind !== 'run' && inputSchema !== null,
      requestedAt: toIso(approval.createdAt),
    };
  }

  return {
    async list(caller, page) {
      const after = page.cursor === undefined ? null : (decodeTuple(page.cursor, ['n', 's']) as [number, string]);
      const approvals: InboxItem[] = [];
      let lastKey: [number, string] | null = null;
      let more = false;
      for (const approval of await repos.approvals.pendingOfOrganization(caller.orgId)) {
        if (after !== null && (approval.createdAt < after[0] || (approval.createdAt === after[0] && approval.id <= after[1]))) continue;
        const session = await repos.sessions.session(approval.sessionId);
        if (session === undefined || !(await canView(repos, caller, session)) || !(await mayDecide(repos.tenancy, caller, approval, session.domainId))) continue;
        if (approvals.length === page.limit) {
          more = true;
          break;
        }
        const shown = await item(approval, caller.orgId);
        if (shown === null) continue;
        approvals.push(shown);
        lastKey = [approval.createdAt, approval.id];
      }
      return { approvals, nextCursor: more && lastKey !== null ? encodeTuple(lastKey) : null };
    },
  };
}
