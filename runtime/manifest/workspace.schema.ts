// Owns the workspace manifest schema (DESIGN "Bootstrap contract"): strict shapes and bounds; cross-references live in references.ts.
import * as z from 'zod';
import { IntegrationDefinitionSchema } from './integration.schema.js';
import { OrganizationSchema } from './organization.schema.js';
import { PartnerSchema } from './partner.schema.js';

export const WorkspaceManifestSchema = z
  .strictObject({
    /** Optional pointer to docs/workspace.schema.json, for editors. */
    $schema: z.string().optional(),
    integrations: z.array(IntegrationDefinitionSchema).default([]),
    organizations: z.array(OrganizationSchema).default([]),
    partners: z.array(PartnerSchema).default([]),
  })
  .meta({
    title: 'Switchyard workspace manifest',
    description:
      'Organizations, users, domains, connections, agents, flows, triggers, knowledge and partners, each named by a local ref. ' +
      'Applied by `switchyard apply FILE`; applying the same manifest twice changes nothing.',
  });

/** The manifest as written (defaults not yet applied). */
export type WorkspaceManifestInput = z.input<typeof WorkspaceManifestSchema>;
/** The manifest after parsing: defaults applied, every bound checked. */
export type WorkspaceManifest = z.output<typeof WorkspaceManifestSchema>;
