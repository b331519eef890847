// The closed provisioning refusal codes as errors, and how a refusal is told apart from any other failure.
import type { ProvisioningRefusalCode } from '../../machines/provisioning-claim.machine.js';
import { AppError } from '../errors.js';

const CODES: ReadonlySet<string> = new Set<ProvisioningRefusalCode>([
  'PARTNER_PLATFORM_SUSPENDED',
  'PROVISIONING_NOT_ENABLED',
  'TEMPLATE_SUSPENDED',
  'QUOTA_EXHAUSTED',
  'IDENTIFIER_TAKEN',
  'CLIENT_SEGMENT_INVALID',
  'PROVISIONING_FAILED',
]);

/** A named refusal raised before the organization exists: the claim is released and the key may be reused. */
export class ProvisioningRefusal extends AppError {
  constructor(
    readonly refusal: ProvisioningRefusalCode,
    message: string,
    details?: Record<string, unknown>,
  ) {
    // Clients learn from the envelope that the key is free again (the "release detail" of a refusal).
    super(refusal, message, { ...details, idempotencyKey: 'released' });
    this.name = 'ProvisioningRefusal';
  }
}

export const isRefusalCode = (code: string): code is ProvisioningRefusalCode => CODES.has(code);
