// Owns turning an untrusted value into a checked WorkspaceManifest, or a ManifestError listing every problem.
import { ManifestError, issuesFromZod, manifestErrorMap } from './manifest-error.js';
import { checkReferences, type KnownIntegrations } from './references.js';
import { WorkspaceManifestSchema, type WorkspaceManifest } from './workspace.schema.js';

export interface ParseManifestOptions {
  /** Built-in and already-applied integrations the manifest may name without declaring them. */
  knownIntegrations?: KnownIntegrations;
  /** Where the manifest came from (a file path), for the error message. */
  source?: string;
}

/** Validates shape, bounds and cross-references; throws ManifestError naming the JSON path of each problem. */
export function parseManifest(value: unknown, options: ParseManifestOptions = {}): WorkspaceManifest {
  const parsed = WorkspaceManifestSchema.safeParse(value, { error: manifestErrorMap });
  if (!parsed.success) throw new ManifestError(issuesFromZod(parsed.error.issues), options.source);
  const issues = checkReferences(parsed.data, options.knownIntegrations);
  if (issues.length > 0) throw new ManifestError(issues, options.source);
  return parsed.data;
}
