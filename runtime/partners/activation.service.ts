// Redeeming an owner's activation link: sets the first password once, then signs the owner in (unless direct login is off).
import type { Storage } from '../../storage/port/storage.js';
import { hashPassword } from '../auth/passwords.js';
import { hashSecret, isWellFormed, sameHash } from '../auth/secrets.js';
import type { SignInService } from '../auth/sign-in.js';
import type { Clock } from '../clock.js';
import { AppError, notFound } from '../errors.js';

export interface ActivationResult {
  userId: string;
  orgId: string | null;
  /** The console session secret, or null when the organization disabled direct sign-in. */
  sessionSecret: string | null;
}

export interface ActivationService {
  activate(input: { token: string; password: string }): Promise<ActivationResult>;
}

export function createActivationService(deps: { store: Pick<Storage, 'repos' | 'writer'>; clock: Clock; signIn: SignInService }): ActivationService {
  const { store, clock, signIn } = deps;
  const { repos } = store;

  return {
    async activate({ token, password }) {
      // Unknown, malformed, used and expired links answer alike: the link says nothing about the account.
      if (!isWellFormed(token, 'svi_')) throw notFound();
      const hash = hashSecret(token);
      const found = await repos.provisioning.invitationByHash(hash);
      if (found === undefined || !sameHash(found.tokenHash, hash) || found.usedAt !== null || found.expiresAt <= clock.now()) throw notFound();
      const passwordHash = await hashPassword(password);
      const user = await store.writer.submit(async (tx) => {
        // Re-checked in the transaction: of two concurrent redemptions exactly one sets the password.
        if (!(await tx.repos.provisioning.useInvitation(found.id, clock.now()))) throw notFound();
        const row = await tx.repos.tenancy.user(found.userId);
        if (row === undefined || row.disabled) throw notFound();
        await tx.repos.tenancy.setPassword(row.id, passwordHash);
        return row;
      });
      try {
        const session = await signIn.login({ email: user.email, password });
        return { userId: user.id, orgId: session.orgId, sessionSecret: session.secret };
      } catch (error) {
        // directLoginDisabled: the password is set (the partner may enable direct login later), no session.
        if (error instanceof AppError && error.code === 'UNAUTHORIZED') return { userId: user.id, orgId: (await repos.tenancy.organizationsOfUser(user.id))[0]?.orgId ?? null, sessionSecret: null };
        throw error;
      }
    },
  };
}
