// Generates docs/workspace.schema.json (the published JSON Schema of the workspace manifest) from the zod schema.
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as z from 'zod';
import { WorkspaceManifestSchema } from '../runtime/manifest/workspace.schema.js';

export const MANIFEST_SCHEMA_PATH = fileURLToPath(new URL('../docs/workspace.schema.json', import.meta.url));

/**
 * The schema of the manifest as written (`io: 'input'`: fields with defaults are optional). Cross-reference
 * rules (refs that must exist) cannot be expressed in JSON Schema; `switchyard apply` checks them.
 */
export function renderManifestSchema(): string {
  const schema = z.toJSONSchema(WorkspaceManifestSchema, { io: 'input', target: 'draft-2020-12' });
  return `${JSON.stringify(schema, null, 2)}\n`;
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  writeFileSync(MANIFEST_SCHEMA_PATH, renderManifestSchema());
  console.log(`wrote ${MANIFEST_SCHEMA_PATH}`);
}
