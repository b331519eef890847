// The Procedure textarea with the verifier's spans marked in a layer behind the text, and the findings as a list
// whose buttons select a span or apply a proposal (keyboard-reachable; the marks themselves are decoration).
import type { RefObject } from 'preact';
import type { Finding, VerifyReport, Warning } from './authoring';

export interface Mark {
  start: number;
  end: number;
  kind: 'problem' | 'warning';
}

interface FieldProps {
  value: string;
  marks: Mark[];
  onInput: (value: string) => void;
  fieldRef: RefObject<HTMLTextAreaElement | null>;
}

/** The text cut at the marks (sorted, overlaps dropped); the layer repeats the text so the marks sit under it. */
function segments(text: string, marks: Mark[]) {
  const out: Array<{ text: string; kind?: Mark['kind'] }> = [];
  let at = 0;
  for (const mark of [...marks].sort((a, b) => a.start - b.start)) {
    if (mark.start < at || mark.end > text.length || mark.end <= mark.start) continue;
    if (mark.start > at) out.push({ text: text.slice(at, mark.start) });
    out.push({ text: text.slice(mark.start, mark.end), kind: mark.kind });
    at = mark.end;
  }
  out.push({ text: text.slice(at) });
  return out;
}

export function ProcedureField({ value, marks, onInput, fieldRef }: FieldProps) {
  return (
    <div class="field">
      <label for="procedure">Procedure</label>
      <small id="procedure-hint">Reference tools as #integration.tool; problems are marked in the text and listed below it.</small>
      {/* One grid cell: the layer sizes it (the textarea grows with its text, no inline style needed). */}
      <span class="editor">
        <span class="editor-layer" aria-hidden="true">
          {segments(value, marks).map((part, i) => (part.kind ? <mark key={i} class={part.kind}>{part.text}</mark> : part.text))}
          {/* A trailing newline needs a character after it to take up its line. */}
          {' '}
        </span>
        <textarea id="procedure" aria-describedby="procedure-hint" value={value} spellcheck={false} onInput={(e) => onInput(e.currentTarget.value)} ref={fieldRef} />
      </span>
    </div>
  );
}

interface ListProps {
  report: VerifyReport;
  /** The report is about the text on screen (else spans are stale and nothing can be selected or replaced). */
  inSync: boolean;
  procedure: string;
  onSelect: (span: { start: number; end: number }) => void;
  onReplace: (span: { start: number; end: number }, text: string) => void;
}

/** `#crm.get_contac` → `#crm.get_contact`: the proposal is a wire id, the span may include the `#`. */
const replacementFor = (current: string, proposal: string) => (current.startsWith('#') ? `#${proposal}` : proposal);

export function FindingsList({ report, inSync, procedure, onSelect, onReplace }: ListProps) {
  if (report.findings.length === 0 && report.warnings.length === 0) return null;
  const item = (entry: Finding | Warning, severity: 'Problem' | 'Warning', key: string) => {
    const span = inSync ? entry.span : null;
    const excerpt = span ? procedure.slice(span.start, span.end) : null;
    const proposal = 'proposal' in entry ? entry.proposal : null;
    return (
      <li key={key} class={severity === 'Problem' ? 'problem' : 'warning'}>
        <span><strong>{severity}:</strong> {entry.detail}</span>
        {span && excerpt !== null && (
          <span class="actions">
            <button type="button" class="secondary" onClick={() => onSelect(span)} aria-label={`Show “${excerpt}” in the procedure`}>Show in procedure</button>
            {proposal && (
              <button type="button" onClick={() => onReplace(span, replacementFor(excerpt, proposal))}>
                Replace with {replacementFor(excerpt, proposal)}
              </button>
            )}
            {entry.kind === 'unreferenced_tool_id' && <button type="button" onClick={() => onReplace(span, `#${excerpt}`)}>Make it #{excerpt}</button>}
          </span>
        )}
        {!span && proposal && <small>Suggested: {proposal}</small>}
      </li>
    );
  };
  return (
    <ul class="findings" aria-label="Verifier findings">
      {report.findings.map((f, i) => item(f, 'Problem', `f${i}`))}
      {report.warnings.map((w, i) => item(w, 'Warning', `w${i}`))}
    </ul>
  );
}
