// The Run and Test run buttons: open a session on the published revision and go to its live page. They never send
// caller credentials (SPEC caller credentials rule 9), and say so.
import { useState } from 'preact/hooks';
import { api, ApiError } from './api';
import type { RunAnswer } from './authoring';
import { navigate } from './router';

interface Props {
  automationId: string;
  /** The revision runs use; null when nothing is published (the buttons then explain instead of failing). */
  publishedRevision: number | null;
  hasUnpublishedChanges: boolean;
}

export function RunAgent({ automationId, publishedRevision, hasUnpublishedChanges }: Props) {
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState<'run' | 'test' | null>(null);
  const [error, setError] = useState<string | null>(null);

  const run = async (mode: 'run' | 'test') => {
    if (!message.trim()) {
      setError('Write the first message the agent should answer.');
      return;
    }
    setBusy(mode);
    setError(null);
    try {
      const opened = await api<RunAnswer>('POST', `/console/agents/${automationId}/run`, { message, mode });
      navigate(`/console/sessions/${opened.sessionId}`);
    } catch (failure) {
      setError((failure as ApiError).message);
      setBusy(null);
    }
  };

  return (
    <section aria-labelledby="run-heading" class="stack">
      <h2 id="run-heading">Run</h2>
      {publishedRevision === null ? (
        <p>Publish the Setup first: Run and Test run use the published revision.</p>
      ) : (
        <>
          <p class="muted">
            Runs use revision {publishedRevision}{hasUnpublishedChanges ? ' (your unpublished changes are not used until you publish)' : ''}.{' '}
            <strong>Run</strong> opens a session the domain's members see; <strong>Test run</strong> opens one only you see. Neither sends
            caller credentials: an agent that needs its callers' own credentials is started through the API instead.
          </p>
          <form class="stack" aria-label="Run the agent" onSubmit={(e) => (e.preventDefault(), void run('run'))}>
            <label>
              First message
              <textarea class="plain" rows={3} maxLength={8000} value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
            </label>
            <span class="actions">
              <button type="submit" disabled={busy !== null}>{busy === 'run' ? 'Starting…' : 'Run'}</button>
              <button type="button" class="secondary" disabled={busy !== null} onClick={() => void run('test')}>{busy === 'test' ? 'Starting…' : 'Test run'}</button>
            </span>
          </form>
        </>
      )}
      {error && <p role="alert" class="error">{error}</p>}
    </section>
  );
}
