// Owns the shapes the tool catalog shares with built-in integrations (tools described, executed elsewhere).
import type { ObjectJsonSchema } from '../manifest/json-value.schema.js';

/** What the model layer and the authoring view need of any tool, declarative or built in. */
export interface CatalogTool {
  /** Wire id `integration.tool`. */
  readonly name: string;
  readonly description: string;
  readonly readonly: boolean;
  readonly inputSchema: ObjectJsonSchema;
}

/** An integration that ships with the service: no manifest, no HTTP mapping, its own executor. */
export interface BuiltinIntegration {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly tools: readonly CatalogTool[];
}
