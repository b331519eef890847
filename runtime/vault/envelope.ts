// Owns sealing caller credentials into a grant: AES-256-GCM under a per-grant data key wrapped by the master key ring.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import {
  callerCredentialsSchema,
  normalizeCallerCredentials,
  type CallerCredentials,
  type NormalizedCallerCredentials,
} from './caller-credentials.schema.js';
import type { KeyRing } from './key-ring.js';
import { VaultError } from './vault-error.js';

export const SEALED_GRANT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const DATA_KEY_BYTES = 32;

/** What a grant is bound to: opening it under any other grant, organization or execution fails. */
export interface GrantBinding {
  readonly grantId: string;
  readonly orgId: string;
  readonly executionId: string;
}

export interface SealGrantInput extends GrantBinding {
  readonly credentials: CallerCredentials | NormalizedCallerCredentials;
}

/** Everything storage must keep for a grant. None of it is secret without the master key. */
export interface SealedGrant {
  readonly version: typeof SEALED_GRANT_VERSION;
  /** Master key that wrapped `wrappedKey`; after rotation, grants whose keyId is not the active one can be rewrapped. */
  readonly keyId: string;
  /** The data key wrapped by the master key: iv (12) | tag (16) | encrypted key (32). */
  readonly wrappedKey: Buffer;
  readonly iv: Buffer;
  readonly tag: Buffer;
  readonly ciphertext: Buffer;
}

export interface GrantEnvelope {
  sealGrant(input: SealGrantInput): SealedGrant;
  /** Throws VaultError with reason GRANT_UNOPENABLE (tampered or wrong binding), MASTER_KEY_UNAVAILABLE or GRANT_MALFORMED. */
  openGrant(sealed: SealedGrant, binding: GrantBinding): NormalizedCallerCredentials;
  /** Rotation: moves the grant to the active master key without touching the payload; returns it unchanged if already there. */
  rewrapGrant(sealed: SealedGrant, binding: GrantBinding): SealedGrant;
}

type Layer = 'payload' | 'data-key';

// Each layer gets its own AAD (domain separation); JSON array encoding keeps the fields unambiguous.
function aadFor(layer: Layer, binding: GrantBinding): Buffer {
  for (const name of ['grantId', 'orgId', 'executionId'] as const) {
    const value = binding[name];
    if (typeof value !== 'string' || value.length === 0) {
      throw new VaultError('GRANT_MALFORMED', `grant binding ${name} must be a non-empty string`);
    }
  }
  return Buffer.from(
    JSON.stringify(['switchyard.caller-grant', SEALED_GRANT_VERSION, layer, binding.grantId, binding.orgId, binding.executionId]),
    'utf8',
  );
}

function checkShape(sealed: SealedGrant): void {
  if (sealed.version !== SEALED_GRANT_VERSION) throw new VaultError('GRANT_MALFORMED', 'unknown sealed grant version');
  if (sealed.iv.length !== IV_BYTES) throw new VaultError('GRANT_MALFORMED', `grant iv must be ${IV_BYTES} bytes`);
  // GCM accepts truncated tags unless told otherwise; a short tag would weaken authentication.
  if (sealed.tag.length !== TAG_BYTES) throw new VaultError('GRANT_MALFORMED', `grant tag must be ${TAG_BYTES} bytes`);
}

export function createGrantEnvelope(keyRing: KeyRing): GrantEnvelope {
  function sealGrant(input: SealGrantInput): SealedGrant {
    const binding: GrantBinding = { grantId: input.grantId, orgId: input.orgId, executionId: input.executionId };
    const payloadAad = aadFor('payload', binding);
    // Re-validated so a grant can never hold something openGrant would later refuse.
    const checked = callerCredentialsSchema.safeParse(input.credentials);
    if (!checked.success) throw new VaultError('GRANT_MALFORMED', 'credentials to seal do not match the callerCredentials schema');
    const plaintext = Buffer.from(JSON.stringify(normalizeCallerCredentials(checked.data)), 'utf8');
    const dataKey = randomBytes(DATA_KEY_BYTES);
    try {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', dataKey, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(payloadAad);
      const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      const wrapped = keyRing.wrap(dataKey, aadFor('data-key', binding));
      return { version: SEALED_GRANT_VERSION, keyId: wrapped.keyId, wrappedKey: wrapped.wrappedKey, iv, tag: cipher.getAuthTag(), ciphertext };
    } finally {
      dataKey.fill(0);
      plaintext.fill(0);
    }
  }

  function openGrant(sealed: SealedGrant, binding: GrantBinding): NormalizedCallerCredentials {
    checkShape(sealed);
    const dataKey = keyRing.unwrap({ keyId: sealed.keyId, wrappedKey: sealed.wrappedKey }, aadFor('data-key', binding));
    let plaintext: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', dataKey, sealed.iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(aadFor('payload', binding));
      decipher.setAuthTag(sealed.tag);
      const body = decipher.update(sealed.ciphertext);
      try {
        plaintext = Buffer.concat([body, decipher.final()]);
      } catch {
        throw new VaultError('GRANT_UNOPENABLE', 'grant payload failed authentication (altered, or bound to another grant)');
      } finally {
        body.fill(0);
      }
    } finally {
      dataKey.fill(0);
    }
    try {
      // Authenticated, so this only fails if a different writer sealed it; the schema still guards the type.
      const parsed = callerCredentialsSchema.safeParse(JSON.parse(plaintext.toString('utf8')));
      if (!parsed.success) throw new VaultError('GRANT_MALFORMED', 'grant payload is not a valid credentials object');
      return normalizeCallerCredentials(parsed.data);
    } catch (error) {
      if (error instanceof VaultError) throw error;
      throw new VaultError('GRANT_MALFORMED', 'grant payload is not valid JSON');
    } finally {
      plaintext.fill(0);
    }
  }

  function rewrapGrant(sealed: SealedGrant, binding: GrantBinding): SealedGrant {
    checkShape(sealed);
    if (sealed.keyId === keyRing.activeKeyId) return sealed;
    const wrapped = keyRing.rewrap({ keyId: sealed.keyId, wrappedKey: sealed.wrappedKey }, aadFor('data-key', binding));
    return { ...sealed, keyId: wrapped.keyId, wrappedKey: wrapped.wrappedKey };
  }

  return Object.freeze({ sealGrant, openGrant, rewrapGrant });
}
