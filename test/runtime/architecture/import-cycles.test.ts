// No import cycles between the runtime folders a fire or a turn runs through (issue 12 item 7: the turn has one home).
/*
 * The graph is read from the sources with TypeScript's pre-processor, type-only imports included: a type cycle
 * is still two folders that cannot be understood or moved apart. Layering on the hot path, lowest first:
 * events / actors / scheduler / execution / models / vault / tools / knowledge, then turns (drives executions),
 * then flows (an engine on turns) and sessions (access, views, lifecycle over turns), then triggers (starts sessions).
 * Composition that needs several of them lives above (runtime.ts).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { cycles, edgesWithin, folderGraph, type FolderGraph } from './folder-graph.js';

const RUNTIME = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../runtime');
const HOT_PATH = ['actors', 'events', 'execution', 'flows', 'knowledge', 'models', 'scheduler', 'sessions', 'tools', 'triggers', 'turns', 'vault'];

/** The graph restricted to `nodes`: only imports from one of them to another. */
function within(graph: FolderGraph, nodes: readonly string[]): FolderGraph {
  const out: FolderGraph = new Map();
  for (const [from, edges] of graph) {
    if (!nodes.includes(from)) continue;
    out.set(from, new Map([...edges].filter(([to]) => nodes.includes(to))));
  }
  return out;
}

t.test('the cycle finder reports a cycle and what makes it', async (t) => {
  const graph: FolderGraph = new Map([
    ['a', new Map([['b', ['a/x.ts -> b/y.ts']]])],
    ['b', new Map([['c', ['b/y.ts -> c/z.ts']]])],
    ['c', new Map([['a', ['c/z.ts -> a/x.ts']]])],
    ['d', new Map([['a', ['d/w.ts -> a/x.ts']]])],
  ]);
  const found = cycles(graph);
  t.same(found, [['a', 'b', 'c']]);
  t.same(edgesWithin(graph, found[0]!).sort(), ['a/x.ts -> b/y.ts', 'b/y.ts -> c/z.ts', 'c/z.ts -> a/x.ts']);
  t.same(cycles(within(graph, ['a', 'b', 'd'])), [], 'cutting one folder out breaks it');
});

t.test('the graph is read from the real sources', async (t) => {
  const graph = folderGraph(RUNTIME);
  t.ok(graph.get('sessions')?.has('turns'), 'sessions drive turns');
  t.ok(graph.get('flows')?.has('turns'), 'flows are an engine on the turns dispatcher');
  for (const folder of HOT_PATH) t.ok(graph.has(folder) || [...graph.values()].some((edges) => edges.has(folder)), `${folder} is in the graph`);
});

t.test('no runtime folder on the hot path imports, directly or not, a folder that imports it', async (t) => {
  const graph = within(folderGraph(RUNTIME), HOT_PATH);
  const found = cycles(graph);
  t.same(
    found.map((component) => ({ folders: component, imports: edgesWithin(graph, component) })),
    [],
    'cut one of the listed imports (move the shared piece down a layer, or compose in runtime.ts)',
  );
});

t.test('turns never reach up into sessions, flows or triggers', async (t) => {
  const turns = folderGraph(RUNTIME).get('turns') ?? new Map<string, string[]>();
  t.same(['sessions', 'flows', 'triggers'].flatMap((up) => turns.get(up) ?? []), []);
});
