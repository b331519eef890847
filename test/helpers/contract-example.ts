// The contract's example manifest: the repository's verbatim copy every fixture reads, and the contract's original beside it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repo's verbatim copy of ../shared/examples/workspace.json: tests read this one so a lone clone passes. */
export const EXAMPLE_PATH = fileURLToPath(new URL('../../examples/workspace.json', import.meta.url));

/** The contract's own copy, present only when the repository sits beside the contract folder. */
export const CONTRACT_EXAMPLE_PATH = fileURLToPath(new URL('../../../shared/examples/workspace.json', import.meta.url));

/** A fresh, mutable copy of the contract example. */
export function exampleWorkspace(): any {
  return JSON.parse(readFileSync(EXAMPLE_PATH, 'utf8'));
}
