// Test helper: asserts a call fails with a VaultError of a given reason, whose text carries none of the given secrets.
import type { Test } from 'tap';
import { inspect } from 'node:util';
import { isVaultError, type VaultErrorReason } from '../../../runtime/vault/vault-error.js';

export function expectVaultError(t: Test, fn: () => unknown, reason: VaultErrorReason, what: string, secrets: readonly string[] = []): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  t.ok(isVaultError(thrown, reason), `${what}: fails with ${reason}`);
  if (!(thrown instanceof Error)) return;
  const text = `${thrown.message}\n${thrown.stack}\n${inspect(thrown)}`;
  for (const secret of secrets) t.notOk(text.includes(secret), `${what}: error does not contain the secret`);
}
