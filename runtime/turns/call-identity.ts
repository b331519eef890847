// Decides, at call time, who one tool call runs as and fetches exactly that identity's material (caller grant or connection).
import type { Execution } from '../../storage/records/executions.js';
import type { PortRepositories } from '../../storage/port/storage.js';
import type { IntegrationDefinition } from '../manifest/integration.schema.js';
import type { ToolIdentity } from '../tools/index.js';
import { openSecret, sealedSecretAad } from '../vault/sealed-secret.js';
import { decideIdentityForEntry, stripUndeclaredFields, type IdentityBinding, type KeyRing } from '../vault/index.js';
import type { CallerGrants } from './caller-grants.js';

export type IdentityFailureCode = 'CALLER_CREDENTIAL_EXPIRED' | 'CALLER_CREDENTIALS_REQUIRED' | 'CONNECTION_NOT_CONFIGURED';

export type CallIdentity =
  | { readonly ok: true; readonly identity: ToolIdentity }
  | { readonly ok: false; readonly code: IdentityFailureCode; readonly message: string };

export interface CallIdentityDeps {
  integrations: Pick<PortRepositories['integrations'], 'connectionsFor'>;
  grants: CallerGrants;
  keyRing: KeyRing;
}

export interface CallIdentityInput {
  /** Read fresh before the call: an approval may have replaced the grant, a timer may have expired it. */
  readonly execution: Execution;
  readonly orgId: string;
  readonly domainId: string;
  readonly integration: IntegrationDefinition;
  readonly binding: IdentityBinding;
  readonly now: number;
}

const expired = (): CallIdentity => ({
  ok: false,
  code: 'CALLER_CREDENTIAL_EXPIRED',
  message: 'The caller credential for this integration expired; the call was not made with any other identity.',
});

/**
 * SPEC "Caller credentials rules": the grant is opened only here, only for caller-bound integrations it holds
 * (rule 6), and only while its declared expiry has not passed (rule 10: no fallback after expiry). Undeclared
 * field names are removed (rule 3). With no caller material the organization's connection is used unless a
 * side required the caller (rule 5). The material lives in the returned object only.
 */
export async function resolveCallIdentity(deps: CallIdentityDeps, input: CallIdentityInput): Promise<CallIdentity> {
  const { execution, integration, binding } = input;
  const held = execution.grantIntegrationIds.includes(integration.id);
  let entry;
  if (binding !== 'service' && held) {
    if (execution.grantExpiresAt !== null && input.now >= execution.grantExpiresAt) return expired();
    const credentials = await deps.grants.open(execution, input.orgId);
    // Held but gone: the expiry timer deleted it (a clock jump past the deadline).
    if (credentials === null) return expired();
    entry = credentials.integrations[integration.id];
  }
  const decision = decideIdentityForEntry(binding, entry);
  if ('refuse' in decision) {
    return { ok: false, code: 'CALLER_CREDENTIALS_REQUIRED', message: 'This integration requires a caller credential and none was supplied for this turn.' };
  }
  if (decision.runAs === 'caller' && entry !== undefined) {
    const stripped = stripUndeclaredFields(entry, (integration.auth?.fields ?? []).map((f) => f.name)).entry;
    return { ok: true, identity: { runAs: 'caller', token: stripped.token, fields: stripped.fields } };
  }
  return organizationIdentity(deps, input);
}

/** The organization's connection for the integration: the session domain's own, else an organization-wide one. */
async function organizationIdentity(deps: CallIdentityDeps, input: CallIdentityInput): Promise<CallIdentity> {
  const { integration } = input;
  const connections = await deps.integrations.connectionsFor(input.orgId, integration.id);
  const connection = connections.find((c) => c.domainId === input.domainId) ?? connections.find((c) => c.domainId === null);
  const needsAuth = integration.auth?.token !== undefined || (integration.auth?.fields?.length ?? 0) > 0;
  if (connection === undefined) {
    if (!needsAuth) return { ok: true, identity: { runAs: 'organization' } };
    return { ok: false, code: 'CONNECTION_NOT_CONFIGURED', message: `No connection to "${integration.id}" is configured for this domain.` };
  }
  if (connection.secretSealed === null) return { ok: true, identity: { runAs: 'organization' } };
  const secret = openSecret(deps.keyRing, connection.secretSealed, sealedSecretAad.connection(input.orgId, connection.id)) as {
    token?: string;
    fields?: Record<string, string>;
  };
  return { ok: true, identity: { runAs: 'organization', token: secret.token, fields: secret.fields } };
}
