// A console session's organization: which ones the signed-in person may pick, and switching to one of them.
import type { Storage } from '../../storage/port/storage.js';
import type { OrgRole } from '../../storage/records/tenancy.js';
import { AppError, forbidden, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { Clock } from '../clock.js';
import type { Authenticator } from './authenticator.js';
import { hashSecret, mintSecret } from './secrets.js';

export interface OrganizationChoice {
  orgId: string;
  name: string;
  role: OrgRole;
}

/** The signed-in person behind a console cookie, with or without an organization selected; 401 otherwise. */
export interface ConsoleAccount {
  sessionId: string;
  userId: string;
  orgId: string | null;
  secret: string;
}

export async function consoleAccount(auth: Authenticator, secret: string | undefined): Promise<ConsoleAccount> {
  const session = secret ? await auth.consoleSession(secret) : null;
  if (!secret || !session) throw new AppError('UNAUTHORIZED', 'Sign in to the console first.');
  return { ...session, secret };
}

export interface OrgChoiceService {
  /** Enabled memberships of organizations that are not suspended, by name. */
  list(account: ConsoleAccount): Promise<OrganizationChoice[]>;
  /**
   * Replaces the console session with one in `orgId` (a new secret: the old cookie stops working), keeping its
   * expiry. An organization the person cannot work in is the uniform 404.
   */
  select(account: ConsoleAccount, orgId: string): Promise<{ secret: string; orgId: string; userId: string; expiresAt: number }>;
}

export function createOrgChoiceService(deps: { store: Storage; clock: Clock }): OrgChoiceService {
  const { store, clock } = deps;
  const { repos } = store;
  const list = async (account: ConsoleAccount): Promise<OrganizationChoice[]> =>
    (await repos.tenancy.activeOrganizationsOfUser(account.userId)).map((row) => ({ orgId: row.orgId, name: row.name, role: row.role }));

  return {
    list,
    async select(account, orgId) {
      if (!(await list(account)).some((choice) => choice.orgId === orgId)) throw notFound();
      if ((await repos.tenancy.organization(orgId))?.directLoginDisabled) throw forbidden('Direct sign-in is disabled for this organization.');
      const old = await repos.credentials.consoleSessionByHash(hashSecret(account.secret));
      if (!old || old.expiresAt <= clock.now()) throw new AppError('UNAUTHORIZED', 'Sign in to the console first.');
      const secret = mintSecret('svs_');
      await store.writer.submit(async (tx) => {
        await tx.repos.credentials.deleteConsoleSession(old.tokenHash);
        await tx.repos.credentials.insertConsoleSession({ id: newId(), userId: account.userId, orgId, tokenHash: hashSecret(secret), createdAt: clock.now(), expiresAt: old.expiresAt });
      });
      return { secret, orgId, userId: account.userId, expiresAt: old.expiresAt };
    },
  };
}
