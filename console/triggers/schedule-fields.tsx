// The schedule part of the trigger form: cron, time zone, input, and the next runs in the trigger's zone and the viewer's.
import { useMemo } from 'preact/hooks';
import { formatIn, knownTimeZones, previewCron, viewerTimeZone } from './cron-preview';
import type { JsonValue } from './types';

export interface ScheduleDraft {
  cron: string;
  timezone: string;
  input: string;
}

/** The input field's JSON as an object, or why it is not one (empty means no input). */
export function parseInput(text: string): { ok: true; value: Record<string, JsonValue> | undefined } | { ok: false; message: string } {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    const value = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, message: 'The input must be a JSON object, such as {"prompt": "Daily summary"}.' };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, message: `The input is not valid JSON: ${(error as Error).message}` };
  }
}

export function ScheduleFields({ draft, onChange }: { draft: ScheduleDraft; onChange: (draft: ScheduleDraft) => void }) {
  const zones = useMemo(knownTimeZones, []);
  const preview = previewCron(draft.cron, draft.timezone);
  const input = parseInput(draft.input);
  const viewer = viewerTimeZone();
  const zone = draft.timezone || 'UTC';
  return (
    <fieldset class="stack">
      <legend>Schedule</legend>
      <label>
        Cron pattern
        <input name="cron" required value={draft.cron} spellcheck={false} aria-invalid={!preview.ok && preview.field === 'cron'} aria-describedby="cron-help"
          onInput={(e) => onChange({ ...draft, cron: e.currentTarget.value })} />
        <small id="cron-help">Minute, hour, day of month, month, day of week — for example <code>30 9 * * 1-5</code> is 09:30 on weekdays.</small>
      </label>
      <label>
        Time zone
        <input name="timezone" list="time-zones" value={draft.timezone} spellcheck={false} aria-invalid={!preview.ok && preview.field === 'timezone'}
          onInput={(e) => onChange({ ...draft, timezone: e.currentTarget.value.trim() })} />
        <datalist id="time-zones">{zones.map((z) => <option key={z} value={z} />)}</datalist>
        <small>The zone the pattern is read in (empty: UTC). Your browser's zone is {viewer}.</small>
      </label>
      <section aria-labelledby="preview-title" class="preview">
        <h2 id="preview-title">Next runs</h2>
        {preview.ok ? (
          preview.runs.length === 0 ? (
            <p role="alert" class="error">This pattern never fires (for example, 30 February).</p>
          ) : (
            <ol aria-label="Next runs">
              {preview.runs.map((run) => (
                <li key={run.getTime()}>
                  <time dateTime={run.toISOString()}>{formatIn(run, zone)}</time>
                  {zone !== viewer && <small> · your time: {formatIn(run, viewer)}</small>}
                </li>
              ))}
            </ol>
          )
        ) : (
          <p role="alert" class="error">{preview.message}</p>
        )}
      </section>
      <label>
        Input (optional)
        <textarea name="input" rows={3} spellcheck={false} value={draft.input} aria-invalid={!input.ok} onInput={(e) => onChange({ ...draft, input: e.currentTarget.value })} />
        <small>A JSON object each run starts with; agents read its <code>prompt</code>.</small>
      </label>
      {!input.ok && <p role="alert" class="error">{input.message}</p>}
    </fieldset>
  );
}
