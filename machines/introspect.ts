// Reads a machine definition back as flat (source, event, guard, target) rows, for the spec-table proof and the diagrams.
import type { AnyStateMachine, StateNode } from 'xstate';

export interface DefinedTransition {
  readonly source: string;
  readonly event: string;
  readonly guard?: string;
  readonly target: string;
}

/** Root node path label; the root only carries transitions if someone adds a machine-wide `on`. */
export const ROOT_PATH = '(root)';

type AnyStateNode = StateNode<any, any>;

export function statePath(node: AnyStateNode): string {
  return node.path.length === 0 ? ROOT_PATH : node.path.join('.');
}

/** Every state node in document order, root first. */
export function listStateNodes(machine: AnyStateMachine): AnyStateNode[] {
  const out: AnyStateNode[] = [];
  const visit = (node: AnyStateNode): void => {
    out.push(node);
    for (const child of Object.values(node.states) as AnyStateNode[]) visit(child);
  };
  visit(machine.root as AnyStateNode);
  return out;
}

// Inline guard functions and combinators (and(), not()) have no stable name: they surface as
// '(inline)' so a table that only lists named guards cannot match them by accident.
function guardName(guard: unknown): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null && typeof (guard as { type?: unknown }).type === 'string') {
    return (guard as { type: string }).type;
  }
  return '(inline)';
}

interface RawTransition {
  readonly guard?: unknown;
  readonly target?: readonly AnyStateNode[];
}

function toRow(source: AnyStateNode, event: string, t: RawTransition): DefinedTransition {
  const guard = guardName(t.guard);
  const target = t.target && t.target.length > 0 ? t.target.map(statePath).join(',') : statePath(source);
  return guard === undefined
    ? { source: statePath(source), event, target }
    : { source: statePath(source), event, guard, target };
}

/**
 * All transitions the definition holds: `on`, `after` (as xstate.after.* events), `onDone`/invoke
 * results, and eventless `always` (reported as event '(always)'), in document order.
 */
export function listTransitions(machine: AnyStateMachine): DefinedTransition[] {
  const rows: DefinedTransition[] = [];
  for (const node of listStateNodes(machine)) {
    for (const [event, transitions] of node.transitions) {
      for (const t of transitions) rows.push(toRow(node, event, t as RawTransition));
    }
    for (const t of node.always ?? []) rows.push(toRow(node, '(always)', t as RawTransition));
  }
  return rows;
}

/** Path of the state the machine starts in. */
export function initialPath(machine: AnyStateMachine): string {
  const targets = (machine.root as AnyStateNode).initial.target as readonly AnyStateNode[];
  return targets.map(statePath).join(',');
}
