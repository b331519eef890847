// The approvals inbox: every pending approval the signed-in person may decide, across sessions and flow runs, kept current.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type ApprovalInboxPage, type PendingApprovalItem } from '../api';
import { ApprovalCard, type Outcome } from '../components/approval-card';
import { useTitle } from '../router';

/** No organization-wide event stream exists, so the inbox rereads its first page (docs/decisions.md). */
const REFRESH_MS = 5000;
const PAGE = 50;

/**
 * A reread of the first page replaces it; approvals loaded with "Show more" stay below it (oldest first, so they
 * come after its last one). When the first page is the whole inbox, nothing else waits.
 */
function withFirstPage(current: PendingApprovalItem[] | null, page: ApprovalInboxPage): PendingApprovalItem[] {
  const last = page.approvals.at(-1);
  if (page.nextCursor === null || current === null || last === undefined) return page.approvals;
  const older = current.filter((a) => a.requestedAt >= last.requestedAt && !page.approvals.some((b) => b.approvalId === a.approvalId));
  return [...page.approvals, ...older];
}

export function ApprovalsPage() {
  useTitle('Approvals');
  const [items, setItems] = useState<PendingApprovalItem[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [outcomes, setOutcomes] = useState<Outcome[]>([]);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let live = true;
    const load = () =>
      api<ApprovalInboxPage>('GET', `/approvals?limit=${PAGE}`)
        .then((page) => {
          if (!live) return;
          setItems((current) => withFirstPage(current, page));
          setNextCursor((cursor) => (page.nextCursor === null ? null : (cursor ?? page.nextCursor)));
          setError(null);
        })
        .catch((failure: ApiError) => live && setError(failure.message));
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [tick]);

  const more = async () => {
    if (!nextCursor || !items) return;
    const page = await api<ApprovalInboxPage>('GET', `/approvals?limit=${PAGE}&cursor=${encodeURIComponent(nextCursor)}`).catch((failure: ApiError) => {
      setError(failure.message);
      return null;
    });
    if (!page) return;
    setItems([...items, ...page.approvals.filter((a) => !items.some((b) => b.approvalId === a.approvalId))]);
    setNextCursor(page.nextCursor);
  };

  const decided = (outcome: Outcome) => {
    setOutcomes((current) => [outcome, ...current.filter((o) => o.approvalId !== outcome.approvalId)].slice(0, 5));
    if (outcome.ok) setItems((current) => current?.filter((a) => a.approvalId !== outcome.approvalId) ?? null);
    setTick((n) => n + 1);
  };

  return (
    <main class="page">
      <h1>Approvals</h1>
      {outcomes.map((o) => (
        <p key={o.approvalId} role={o.ok ? 'status' : 'alert'} class={o.ok ? 'notice' : 'error notice'}>
          {o.message}{' '}
          <button type="button" class="link" onClick={() => setOutcomes((current) => current.filter((c) => c !== o))}>Dismiss</button>
        </p>
      ))}
      {error && <p role="alert" class="error">{error}</p>}
      {items === null && !error && <p role="status">Loading approvals…</p>}
      {items?.length === 0 && <p role="status">Nothing waits for your decision. Turns and flow runs that need your approval appear here as they stop.</p>}
      {items && items.length > 0 && (
        <ul class="approvals" aria-label="Pending approvals">
          {items.map((item) => <ApprovalCard key={item.approvalId} item={item} onDecided={decided} />)}
        </ul>
      )}
      {nextCursor && <button type="button" onClick={more}>Show more</button>}
    </main>
  );
}
