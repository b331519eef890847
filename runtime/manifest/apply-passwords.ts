// Owns the async half of apply: password hashes computed before the (synchronous) write transaction.
import type { PortRepositories } from '../../storage/port/storage.js';
import { hashPassword, verifyPassword } from '../auth/passwords.js';
import type { WorkspaceManifest } from './workspace.schema.js';

/** Key of a user in the plan: `<organization index>/<user index>`. */
export const passwordKey = (org: number, user: number): string => `${org}/${user}`;

/**
 * The hash to store per user, or undefined to keep what is stored. An unchanged password keeps its stored
 * hash (re-applying rewrites nothing); a new or changed one gets a fresh scrypt hash.
 */
export async function planPasswordHashes(repos: PortRepositories, manifest: WorkspaceManifest): Promise<Map<string, string | undefined>> {
  const jobs: Array<Promise<readonly [string, string | undefined]>> = [];
  for (const [o, org] of manifest.organizations.entries()) {
    for (const [u, user] of org.users.entries()) {
      const key = passwordKey(o, u);
      const password = user.password;
      if (password === undefined) {
        jobs.push(Promise.resolve([key, undefined] as const));
        continue;
      }
      const applied = await repos.tenancy.manifestRef(org.ref, user.ref);
      const existing =
        (applied?.entity === 'user' ? await repos.tenancy.user(applied.entityId) : undefined) ?? (await repos.tenancy.userByEmail(user.email));
      jobs.push(
        (async () => {
          const stored = existing?.passwordHash ?? null;
          if (stored !== null && (await verifyPassword(password, stored))) return [key, stored] as const;
          return [key, await hashPassword(password)] as const;
        })(),
      );
    }
  }
  return new Map(await Promise.all(jobs));
}
