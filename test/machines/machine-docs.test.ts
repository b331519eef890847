// Fails when docs/machines.md drifts from the diagrams generated from the machine definitions.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { createMachine } from 'xstate';
import { MACHINE_CATALOG } from '../../machines/catalog.js';
import { listTransitions } from '../../machines/introspect.js';
import { MACHINE_DOCS_PATH, renderMachineDocs } from '../../scripts/gen-machine-docs.js';

t.test('docs/machines.md equals freshly generated output (run `npm run docs:machines`)', async (t) => {
  t.equal(readFileSync(MACHINE_DOCS_PATH, 'utf8'), renderMachineDocs());
});

t.test('generation is deterministic', async (t) => {
  t.equal(renderMachineDocs(), renderMachineDocs());
});

t.test('every machine has a diagram that draws each of its transitions', async (t) => {
  const docs = renderMachineDocs();
  for (const entry of MACHINE_CATALOG) {
    t.ok(docs.includes(`## ${entry.name}\n`), `${entry.name} has a section`);
    for (const tr of listTransitions(entry.machine)) {
      const label = tr.guard === undefined ? tr.event : `${tr.event} [${tr.guard}]`;
      t.ok(docs.includes(`  ${tr.source} --> ${tr.target} : ${label}\n`), `${entry.name}: ${tr.source} --> ${tr.target} : ${label}`);
    }
  }
});

t.test('a changed machine, table or catalog changes the output', async (t) => {
  const [first, ...rest] = MACHINE_CATALOG;
  const extra = createMachine({ id: first.name, initial: 'draft', states: { draft: { on: { EXTRA: 'published' } }, published: {} } });
  t.not(renderMachineDocs([{ ...first, machine: extra }, ...rest]), renderMachineDocs(), 'a different definition shows');
  t.not(renderMachineDocs([{ ...first, specRows: first.specRows.slice(1) }, ...rest]), renderMachineDocs(), 'a dropped table row shows');
  t.not(renderMachineDocs(rest), renderMachineDocs(), 'a dropped machine shows');
});
