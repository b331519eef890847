// Who may see, drive, manage and start sessions (SPEC "Personal-key Agent conversations" rules 1-3, 6).
import type { PortRepositories } from '../../storage/port/storage.js';
import type { Automation } from '../../storage/records/automations.js';
import type { Session } from '../../storage/records/sessions.js';
import type { DomainRole } from '../../storage/records/tenancy.js';
import { AppError, forbidden, notFound } from '../errors.js';

export interface Caller {
  readonly userId: string;
  readonly orgId: string;
}

/** Roles that may run automations and drive domain sessions (DESIGN "Domain model": execute = operator+). */
const EXECUTE_ROLES: ReadonlySet<DomainRole> = new Set(['operator', 'editor', 'owner']);
/** Roles that may rename, archive, delete or set the outcome of any domain session. */
const MANAGE_ROLES: ReadonlySet<DomainRole> = new Set(['editor', 'owner']);

/**
 * Why new messages are unavailable: a Flow's session (a flow run takes an input object, not text: messages are
 * refused rather than dropped), the caller may not drive it, it is archived, or its agent is unpublished.
 */
export type ReadOnlyReason = 'flow_session' | 'not_a_participant' | 'session_archived' | 'agent_unpublished';

export interface Participation {
  canParticipate: boolean;
  canManage: boolean;
  readOnlyReason: ReadOnlyReason | null;
}

type Repos = Pick<PortRepositories, 'sessions' | 'tenancy' | 'automations'>;

/**
 * Rule 3: a personal chat is visible to its creator only; a domain session to current members of its domain.
 * Organization Owner/Admin status grants nothing here. Anything else is the uniform 404 (rule 6).
 */
export async function canView(repos: Pick<Repos, 'tenancy'>, caller: Caller, session: Session): Promise<boolean> {
  if (session.orgId !== caller.orgId) return false;
  if (session.visibility === 'personal') return session.createdBy === caller.userId;
  return (await repos.tenancy.domainRole(session.domainId, caller.userId)) !== null;
}

export async function visibleSession(repos: Pick<Repos, 'sessions' | 'tenancy'>, caller: Caller, sessionId: string): Promise<Session> {
  const session = await repos.sessions.session(sessionId);
  if (session === undefined || !(await canView(repos, caller, session))) throw notFound();
  return session;
}

/** The flags of rule 3 for a caller who can view the session; mutations recheck through `assertCanAppend`. */
export async function participation(repos: Pick<Repos, 'tenancy' | 'automations'>, caller: Caller, session: Session): Promise<Participation> {
  const role = await repos.tenancy.domainRole(session.domainId, caller.userId);
  const isCreator = session.createdBy !== null && session.createdBy === caller.userId;
  const canManage = isCreator || (role !== null && MANAGE_ROLES.has(role));
  // Rule 2: the creator / recorded owner, or a domain Operator, Editor or Owner with current membership.
  const permitted = isCreator || (role !== null && EXECUTE_ROLES.has(role));
  const automation = await repos.automations.automation(session.automationId);
  if (automation?.kind === 'flow') return { canParticipate: false, canManage, readOnlyReason: 'flow_session' };
  if (!permitted) return { canParticipate: false, canManage, readOnlyReason: 'not_a_participant' };
  if (session.status !== 'active') return { canParticipate: false, canManage, readOnlyReason: 'session_archived' };
  if (automation === undefined || automation.publishedRevision === null) {
    return { canParticipate: false, canManage, readOnlyReason: 'agent_unpublished' };
  }
  return { canParticipate: true, canManage, readOnlyReason: null };
}

/** Rule 2: a visible session the caller may not drive is 403 SESSION_NOT_DRIVABLE (with the reason). */
export async function assertCanAppend(repos: Pick<Repos, 'tenancy' | 'automations'>, caller: Caller, session: Session): Promise<void> {
  const flags = await participation(repos, caller, session);
  if (!flags.canParticipate) {
    throw new AppError('SESSION_NOT_DRIVABLE', 'You cannot send messages in this session.', { readOnlyReason: flags.readOnlyReason });
  }
}

/** Lifecycle changes (rename, outcome, archive, delete): visible (else 404) and `canManage` (else 403). */
export async function assertCanManage(repos: Pick<Repos, 'tenancy' | 'automations'>, caller: Caller, session: Session): Promise<void> {
  if (!(await participation(repos, caller, session)).canManage) throw forbidden('You cannot manage this session.');
}

/**
 * Rule 1, permission half: the key owner must hold an executing role in the automation's domain. The
 * automation is in the caller's organization (the caller checked), so a missing role is 403, not 404.
 */
export async function assertCanExecute(repos: Pick<Repos, 'tenancy'>, caller: Caller, automation: Automation): Promise<void> {
  const role = await repos.tenancy.domainRole(automation.domainId, caller.userId);
  if (role === null || !EXECUTE_ROLES.has(role)) throw forbidden('You cannot run automations in this domain.');
}
