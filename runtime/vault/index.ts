// Re-exports the caller-credential vault core (schema, key ring, envelope, identity policy) by name.
export {
  CALLER_CREDENTIAL_LIMITS,
  callerCredentialEntrySchema,
  callerCredentialsSchema,
  callerCredentialExpiresAtSchema,
  hasCallerMaterial,
  normalizeCallerCredentials,
  type CallerCredentialEntry,
  type CallerCredentials,
  type CallerCredentialsInput,
  type NormalizedCallerCredentials,
} from './caller-credentials.schema.js';
export {
  KEY_ID_PATTERN,
  MASTER_KEY_BYTES,
  WRAPPED_KEY_BYTES,
  createKeyRing,
  generateMasterKeyEntry,
  parseKeyRing,
  type KeyRing,
  type MasterKeyEntry,
  type WrappedDataKey,
} from './key-ring.js';
export {
  MASTER_KEYS_ENV,
  MASTER_KEY_FILE_ENV,
  defaultMasterKeyFileFor,
  loadKeyRing,
  type KeyRingSource,
  type LoadKeyRingOptions,
  type LoadedKeyRing,
  type MasterKeyFallback,
} from './master-key-source.js';
export {
  SEALED_GRANT_VERSION,
  createGrantEnvelope,
  type GrantBinding,
  type GrantEnvelope,
  type SealGrantInput,
  type SealedGrant,
} from './envelope.js';
export {
  IDENTITY_BINDINGS,
  bindingsByIntegration,
  decideIdentity,
  decideIdentityForEntry,
  narrowCredentials,
  planTargetIdentities,
  stripUndeclaredFields,
  type IdentityBinding,
  type IdentityDecision,
  type IdentityDecisionInput,
  type IntegrationBinding,
  type NarrowedCredentials,
  type StrippedEntry,
  type TargetIdentityPlan,
} from './identity-policy.js';
export { VaultError, isVaultError, type VaultErrorReason } from './vault-error.js';
