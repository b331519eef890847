// An agent's revisions or a flow's versions, newest first, with the current one marked and a rollback to any other.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from './api';
import type { Revision, RevisionPage } from './authoring';
import { formatTime } from './format';

interface Props {
  automationId: string;
  kind: 'agent' | 'flow';
  /** Changes whenever something may have added a revision (a publish), so the list rereads. */
  version: number;
  /** Editors may roll back; others see the history only. */
  canEdit: boolean;
  onChanged: () => void;
}

export function Revisions({ automationId, kind, version, canEdit, onChanged }: Props) {
  const noun = kind === 'agent' ? 'Revision' : 'Version';
  const [revisions, setRevisions] = useState<Revision[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<number | null>(null);

  const page = (cursor?: string) =>
    api<RevisionPage>('GET', `/authoring/automations/${automationId}/revisions?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  useEffect(() => {
    let live = true;
    page()
      .then((first) => live && (setRevisions(first.revisions), setNextCursor(first.nextCursor), setError(null)))
      .catch((failure: ApiError) => live && setError(failure.message));
    return () => {
      live = false;
    };
  }, [automationId, version]);

  const more = async () => {
    if (!nextCursor || !revisions) return;
    const next = await page(nextCursor).catch((failure: ApiError) => (setError(failure.message), null));
    if (next) (setRevisions([...revisions, ...next.revisions]), setNextCursor(next.nextCursor));
  };
  const rollback = async (revision: number) => {
    setBusy(revision);
    try {
      await api('POST', `/authoring/automations/${automationId}/rollback`, { revision });
      setError(null);
      onChanged();
    } catch (failure) {
      setError((failure as ApiError).message);
    } finally {
      setBusy(null);
    }
  };

  return (
    <section aria-labelledby="revisions-heading">
      <h2 id="revisions-heading">{kind === 'agent' ? 'Revisions' : 'Versions'}</h2>
      {error && <p role="alert" class="error">{error}</p>}
      {revisions === null && !error && <p role="status">Loading…</p>}
      {revisions?.length === 0 && <p>Nothing published yet{kind === 'agent' ? ': publish the Setup to make revision 1.' : '.'}</p>}
      {revisions && revisions.length > 0 && (
        <ol class="list" aria-label={kind === 'agent' ? 'Revisions' : 'Versions'}>
          {revisions.map((r) => (
            <li key={r.revision}>
              <span class="stack-tight">
                <strong>{noun} {r.revision}</strong>
                <span>{r.changeNote ?? <small>No change note</small>}</span>
              </span>
              <span class="meta">
                {r.current && <span class="badge current">Current</span>}
                <time dateTime={r.createdAt}>{formatTime(r.createdAt)}</time>
                {canEdit && !r.current && (
                  <button type="button" class="secondary" disabled={busy !== null} onClick={() => rollback(r.revision)}>
                    {busy === r.revision ? 'Switching…' : `Make ${noun.toLowerCase()} ${r.revision} current`}
                  </button>
                )}
              </span>
            </li>
          ))}
        </ol>
      )}
      {nextCursor && <button type="button" class="secondary" onClick={more}>Show older</button>}
    </section>
  );
}
