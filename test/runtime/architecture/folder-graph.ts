// The import graph between runtime/ folders, read with TypeScript's own pre-processor (type-only imports count).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** One folder-to-folder edge and the file imports that make it. */
export type FolderGraph = Map<string, Map<string, string[]>>;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** A folder under `root` is a node; a file directly in `root` (runtime.ts, errors.ts…) is a node of its own. */
const nodeOf = (root: string, file: string) => relative(root, file).split('/')[0]!;

export function folderGraph(root: string): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const file of sourcesUnder(root)) {
    const from = nodeOf(root, file);
    for (const imported of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!imported.fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), imported.fileName.replace(/\.js$/, '.ts'));
      if (!target.startsWith(root + '/')) continue;
      const to = nodeOf(root, target);
      if (to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      graph.set(from, edges);
      const line = `${relative(root, file)} -> ${relative(root, target)}`;
      if (!edges.get(to)?.includes(line)) edges.set(to, [...(edges.get(to) ?? []), line]);
    }
  }
  return graph;
}

/** Strongly connected components with more than one node (Tarjan): each is a set of folders importing each other. */
export function cycles(graph: FolderGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    for (const to of graph.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      component.push(member);
    } while (member !== node);
    if (component.length > 1) out.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return out;
}

/** The file imports inside one component, for a failure message that says what to cut. */
export function edgesWithin(graph: FolderGraph, component: readonly string[]): string[] {
  return component.flatMap((from) => [...(graph.get(from) ?? [])].filter(([to]) => component.includes(to)).flatMap(([, files]) => files));
}
