// An agent's draft Setup: saved as you type (debounced), verified after each save, findings marked at their spans,
// proposals applied in one click, and published with a change note.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';
import { authoring, type Published, type Setup, type VerifyReport } from './authoring';
import { FindingsList, ProcedureField, type Mark } from './procedure-field';

const SAVE_DELAY_MS = 600;

type Status = { state: 'saved' | 'pending' | 'saving' } | { state: 'failed'; message: string };

interface Props {
  automationId: string;
  initial: Setup;
  onPublished: (published: Published) => void;
  /** The draft as stored after each save, so the page can say whether it differs from the published revision. */
  onSaved: (setup: Setup) => void;
}

const toolsOf = (text: string): string[] => text.split(/[\n,]/).map((name) => name.trim()).filter(Boolean);
export const sameSetup = (a: Setup, b: Setup) =>
  a.principles === b.principles && a.procedure === b.procedure && a.model === b.model && a.approvalTools.join('\n') === b.approvalTools.join('\n');

export function SetupEditor({ automationId, initial, onPublished, onSaved }: Props) {
  const [draft, setDraft] = useState<Setup>(initial);
  const [toolsText, setToolsText] = useState(initial.approvalTools.join('\n'));
  const [checked, setChecked] = useState<{ procedure: string; report: VerifyReport } | null>(null);
  const [status, setStatus] = useState<Status>({ state: 'saved' });
  const [note, setNote] = useState('');
  const [publishing, setPublishing] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const procedureRef = useRef<HTMLTextAreaElement>(null);
  const latest = useRef(draft);
  latest.current = draft;
  const saved = useRef(initial);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // Saves and checks run one at a time, in order, so the last answer shown is for the last text sent.
  const queue = useRef<Promise<void>>(Promise.resolve());

  const saveAndVerify = async () => {
    const snapshot = latest.current;
    try {
      if (!sameSetup(snapshot, saved.current)) {
        setStatus({ state: 'saving' });
        const answer = await authoring<{ setup: Setup }>('PATCH', `/automations/${automationId}/setup`, snapshot);
        saved.current = snapshot;
        onSaved(answer.setup);
      }
      const report = await authoring<VerifyReport>('GET', `/automations/${automationId}/verify`);
      setChecked({ procedure: snapshot.procedure, report });
      if (latest.current === snapshot) setStatus({ state: 'saved' });
    } catch (failure) {
      setStatus({ state: 'failed', message: (failure as ApiError).message });
    }
  };
  const flush = () => {
    clearTimeout(timer.current);
    queue.current = queue.current.then(saveAndVerify);
    return queue.current;
  };
  useEffect(() => {
    void flush();
    return () => clearTimeout(timer.current);
  }, []);

  const update = (patch: Partial<Setup>) => {
    setDraft({ ...latest.current, ...patch });
    latest.current = { ...latest.current, ...patch };
    setStatus({ state: 'pending' });
    setOutcome(null);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void flush(), SAVE_DELAY_MS);
  };

  // Marks only when the report is about the text on screen: spans of older text would point at the wrong characters.
  const inSync = checked !== null && checked.procedure === draft.procedure;
  const report = checked?.report;
  const marks: Mark[] = !inSync || !report ? [] : [
    ...report.findings.flatMap((f) => (f.span ? [{ ...f.span, kind: 'problem' as const }] : [])),
    ...report.warnings.flatMap((w) => (w.span ? [{ ...w.span, kind: 'warning' as const }] : [])),
  ];

  const select = (span: { start: number; end: number }) => {
    const field = procedureRef.current;
    if (!field) return;
    field.focus();
    field.setSelectionRange(span.start, span.end);
  };
  const replace = (span: { start: number; end: number }, text: string) => {
    const procedure = draft.procedure.slice(0, span.start) + text + draft.procedure.slice(span.end);
    update({ procedure });
    void flush();
    // After the re-render, select what was put in, so the change is visible and undoable by typing.
    requestAnimationFrame(() => select({ start: span.start, end: span.start + text.length }));
  };

  const publish = async (event: Event) => {
    event.preventDefault();
    setPublishing(true);
    setOutcome(null);
    try {
      await flush();
      const published = await authoring<Published>('POST', `/automations/${automationId}/publish`, { changeNote: note.trim() || null });
      setOutcome({ ok: true, text: `Published revision ${published.revision}.` });
      setNote('');
      onPublished(published);
    } catch (failure) {
      const error = failure as ApiError;
      setOutcome({ ok: false, text: error.status === 422 ? 'Not published: the verifier found problems. Fix the findings below, then publish again.' : error.message });
      void flush();
    } finally {
      setPublishing(false);
    }
  };

  const problems = inSync && report ? report.findings.length : null;
  const statusText =
    status.state === 'failed' ? `Not saved: ${status.message}`
    : status.state === 'pending' ? 'Unsaved changes…'
    : status.state === 'saving' ? 'Saving…'
    : problems === null ? 'Draft saved. Checking…'
    : `Draft saved. ${problems === 0 ? 'No problems' : problems === 1 ? '1 problem' : `${problems} problems`}, ${report!.warnings.length === 1 ? '1 warning' : `${report!.warnings.length} warnings`}.`;

  return (
    <section aria-labelledby="setup-heading" class="stack">
      <h2 id="setup-heading">Setup</h2>
      <p role="status" class={status.state === 'failed' ? 'error' : 'muted'}>{statusText}</p>
      <label>
        Principles
        <textarea class="plain" rows={4} value={draft.principles} onInput={(e) => update({ principles: e.currentTarget.value })} />
      </label>
      <ProcedureField fieldRef={procedureRef} value={draft.procedure} marks={marks} onInput={(procedure) => update({ procedure })} />
      {report && <FindingsList report={report} inSync={inSync} procedure={draft.procedure} onSelect={select} onReplace={replace} />}
      <label>
        Model
        <input value={draft.model} onInput={(e) => update({ model: e.currentTarget.value })} spellcheck={false} />
      </label>
      <label>
        Tools that need approval <small>one tool id per line, e.g. crm.update_contact</small>
        <textarea
          class="plain"
          rows={2}
          value={toolsText}
          spellcheck={false}
          onInput={(e) => {
            setToolsText(e.currentTarget.value);
            update({ approvalTools: toolsOf(e.currentTarget.value) });
          }}
        />
      </label>
      <form class="publish" onSubmit={publish} aria-label="Publish">
        <label>
          Change note <small>what changed, for the revision history (optional)</small>
          <input value={note} maxLength={2000} onInput={(e) => setNote(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={publishing}>{publishing ? 'Publishing…' : 'Publish'}</button>
      </form>
      {outcome && <p role={outcome.ok ? 'status' : 'alert'} class={outcome.ok ? 'ok' : 'error'}>{outcome.text}</p>}
    </section>
  );
}
