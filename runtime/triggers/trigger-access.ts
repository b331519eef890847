// Who may fire a trigger and read its Run history (SPEC Trigger firing rule 1, Errors: uniform 404 vs 403).
import type { PortRepositories } from '../../storage/port/storage.js';
import type { DomainRole } from '../../storage/records/tenancy.js';
import type { Trigger } from '../../storage/records/triggers.js';
import { AppError, forbidden, notFound } from '../errors.js';

/** DESIGN "Domain model": `execute` is operator and above. */
const EXECUTE_ROLES: ReadonlySet<DomainRole> = new Set(['operator', 'editor', 'owner']);

export interface TriggerCaller {
  readonly userId: string;
  readonly orgId: string;
}

type Repos = Pick<PortRepositories, 'triggers' | 'tenancy'>;

/** Unknown ids and other organizations' ids are the uniform 404 (SPEC Errors NOT_FOUND). */
export async function triggerOfCaller(repos: Pick<Repos, 'triggers'>, caller: TriggerCaller, triggerId: string): Promise<Trigger> {
  const trigger = await repos.triggers.trigger(triggerId);
  if (trigger === undefined || trigger.orgId !== caller.orgId) throw notFound();
  return trigger;
}

/**
 * Inside the caller's organization a missing permission is 403 (SPEC Errors FORBIDDEN), as on the conversation
 * and authoring routes; organization Owner/Admin status grants nothing inside a domain.
 */
export async function assertCanFire(repos: Pick<Repos, 'tenancy'>, caller: TriggerCaller, trigger: Trigger): Promise<void> {
  const role = await repos.tenancy.domainRole(trigger.domainId, caller.userId);
  if (role === null || !EXECUTE_ROLES.has(role)) throw forbidden('You cannot fire triggers in this domain.');
}

/** Run history is visible to every member of the trigger's domain (viewers included). */
export async function assertCanReadRuns(repos: Pick<Repos, 'tenancy'>, caller: TriggerCaller, trigger: Trigger): Promise<void> {
  if ((await repos.tenancy.domainRole(trigger.domainId, caller.userId)) === null) throw forbidden('You cannot see this trigger\'s runs.');
}

/** Rule 1: only an active API trigger can be fired; a schedule or event trigger, or a paused one, is not found here. */
export function assertFireable(trigger: Trigger): void {
  if (trigger.type !== 'api' || !trigger.active) {
    throw new AppError('NOT_FOUND', 'No active API trigger has this id.');
  }
}
