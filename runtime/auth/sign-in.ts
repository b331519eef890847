// Console sign-in, sign-out and the short-lived user token minted from a console session.
import type { Storage } from '../../storage/port/storage.js';
import { HOUR, toIso, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Authenticator } from './authenticator.js';
import { verifyPassword } from './passwords.js';
import { hashSecret, mintSecret } from './secrets.js';

export const USER_TOKEN_TTL_MS = HOUR;

export interface SignInService {
  /** Returns the cookie secret; the organization is the one asked for, or the user's only one. */
  login(input: { email: string; password: string; orgId?: string }): Promise<{ secret: string; orgId: string | null; userId: string }>;
  logout(secret: string): Promise<void>;
  /** Spec "Token": cookie only; 401 UNAUTHORIZED without a usable session or with no organization selected. */
  issueUserToken(cookieSecret: string | undefined): Promise<{ token: string; expiresAt: string }>;
}

const unauthorized = (): AppError => new AppError('UNAUTHORIZED', 'Sign in to the console first.');

export function createSignInService(deps: { store: Storage; clock: Clock; auth: Authenticator; sessionTtlMs: number }): SignInService {
  const { store, clock, auth, sessionTtlMs } = deps;
  const { repos } = store;

  return {
    async login({ email, password, orgId }) {
      const user = await repos.tenancy.userByEmail(email);
      const passwordOk = await verifyPassword(password, user?.passwordHash ?? null);
      if (!user || !passwordOk || user.disabled) throw new AppError('UNAUTHORIZED', 'Email or password is not correct.');
      const memberships = await repos.tenancy.organizationsOfUser(user.id);
      let selected: string | null = null;
      if (orgId !== undefined) {
        if (!memberships.some((m) => m.orgId === orgId)) throw new AppError('UNAUTHORIZED', 'Email or password is not correct.');
        selected = orgId;
      } else if (memberships.length === 1) {
        selected = memberships[0].orgId;
      }
      if (selected) {
        const org = await repos.tenancy.organization(selected);
        if (org?.directLoginDisabled) throw new AppError('UNAUTHORIZED', 'Direct sign-in is disabled for this organization.');
      }
      const secret = mintSecret('svs_');
      const now = clock.now();
      await store.writer.submit(async (tx) => {
        await tx.repos.credentials.insertConsoleSession({
          id: newId(),
          userId: user.id,
          orgId: selected,
          tokenHash: hashSecret(secret),
          createdAt: now,
          expiresAt: now + sessionTtlMs,
        });
      });
      return { secret, orgId: selected, userId: user.id };
    },

    async logout(secret) {
      await store.writer.submit(async (tx) => {
        await tx.repos.credentials.deleteConsoleSession(hashSecret(secret));
      });
    },

    async issueUserToken(cookieSecret) {
      if (!cookieSecret) throw unauthorized();
      const session = await auth.consoleSession(cookieSecret);
      if (!session || !session.orgId) throw unauthorized();
      if (!(await auth.isActiveMember(session.userId, session.orgId))) throw unauthorized();
      const token = mintSecret('svu_');
      const now = clock.now();
      const expiresAt = now + USER_TOKEN_TTL_MS;
      await store.writer.submit(async (tx) => {
        await tx.repos.credentials.insertUserToken({
          id: newId(),
          userId: session.userId,
          orgId: session.orgId as string,
          tokenHash: hashSecret(token),
          createdAt: now,
          expiresAt,
        });
      });
      return { token, expiresAt: toIso(expiresAt) };
    },
  };
}
