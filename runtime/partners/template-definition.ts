// A partner template as stored by the manifest (partner_templates.definition), read back for onboarding.
import * as z from 'zod';
import type { PartnerTemplate } from '../../storage/records/partners.js';
import { PartnerTemplateSchema } from '../manifest/partner.schema.js';

export const TemplateDefinitionSchema = PartnerTemplateSchema.omit({ ref: true, suspended: true });
export type TemplateDefinition = z.output<typeof TemplateDefinitionSchema>;

/** The template's definition, or null when the stored JSON no longer parses (a refusal, not a crash). */
export function readTemplateDefinition(template: Pick<PartnerTemplate, 'definition'>): TemplateDefinition | null {
  const parsed = TemplateDefinitionSchema.safeParse(template.definition);
  return parsed.success ? parsed.data : null;
}
