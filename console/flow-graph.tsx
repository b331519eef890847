// A flow's step graph as nested ordered lists: steps in run order, a condition's then/else branches inside it, and
// for each step the earlier steps whose output it reads (its edges). Readable by screen readers as it is.

interface ToolStep {
  id: string;
  tool: string;
  args?: Record<string, unknown>;
  approval?: boolean;
}
interface ConditionStep {
  id: string;
  if: string;
  then: Step[];
  else?: Step[];
}
type Step = ToolStep | ConditionStep;

export interface FlowDefinition {
  inputs?: { properties?: Record<string, { type?: string }>; required?: string[] };
  steps: Step[];
  output?: unknown;
}

/** Templates read `input.x` and `steps.<id>.output`: the ids a step's templates name are its incoming edges. */
function readsFrom(value: unknown): string[] {
  const text = JSON.stringify(value ?? null);
  return [...new Set([...text.matchAll(/steps\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!))];
}

function StepItem({ step }: { step: Step }) {
  const reads = readsFrom('tool' in step ? step.args : step.if);
  return (
    <li>
      {'tool' in step ? (
        <span>
          <strong>{step.id}</strong>: calls <code>{step.tool}</code>
          {step.approval && <span class="badge">needs approval</span>}
        </span>
      ) : (
        <span>
          <strong>{step.id}</strong>: if <code>{step.if}</code>
        </span>
      )}
      {reads.length > 0 && <small>reads the output of {reads.join(', ')}</small>}
      {!('tool' in step) && (
        <>
          <StepList steps={step.then} label={`${step.id}: then`} />
          {step.else && <StepList steps={step.else} label={`${step.id}: else`} />}
        </>
      )}
    </li>
  );
}

function StepList({ steps, label }: { steps: Step[]; label: string }) {
  return (
    <div class="branch">
      <span class="muted">{label.endsWith('else') ? 'Otherwise:' : label.endsWith('then') ? 'Then:' : ''}</span>
      <ol aria-label={label}>
        {steps.map((step) => <StepItem key={step.id} step={step} />)}
      </ol>
    </div>
  );
}

export function FlowGraph({ definition }: { definition: FlowDefinition }) {
  const inputs = Object.entries(definition.inputs?.properties ?? {});
  const required = new Set(definition.inputs?.required ?? []);
  const outputReads = readsFrom(definition.output);
  return (
    <section aria-labelledby="graph-heading" class="stack graph">
      <h2 id="graph-heading">Step graph</h2>
      <p>
        Inputs:{' '}
        {inputs.length === 0 ? 'none' : inputs.map(([name, schema], i) => (
          <span key={name}>{i > 0 && ', '}<code>{name}</code> ({schema.type ?? 'any'}{required.has(name) ? ', required' : ''})</span>
        ))}
      </p>
      <ol aria-label="Steps">
        {definition.steps.map((step) => <StepItem key={step.id} step={step} />)}
      </ol>
      <p>
        Returns: {definition.output === undefined || definition.output === null ? 'nothing' : <code>{JSON.stringify(definition.output)}</code>}
        {outputReads.length > 0 && <small> (the output of {outputReads.join(', ')})</small>}
      </p>
    </section>
  );
}
