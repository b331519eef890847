// One pending approval: its proposal, then approve, reject with a comment, or approve with edited (schema-checked) arguments.
import { useState } from 'preact/hooks';
import { api, ApiError, type PendingApprovalItem } from '../api';
import { formatTime } from '../format';
import { onLinkClick } from '../router';
import { checkArgs } from './args-check';

export type Outcome = { approvalId: string; label: string; ok: boolean; message: string };

type Decision = { decision: 'approved' | 'rejected'; comment?: string; editedArgs?: Record<string, unknown> };

/** Turn approvals go to the console's turn-approval route, run approvals to the run route; the approvalId makes a stale decision a 409. */
function decide(item: PendingApprovalItem, body: Decision): Promise<unknown> {
  const path = item.kind === 'run' ? `/approvals/runs/${item.runId ?? item.sessionId}` : `/sessions/${item.sessionId}/turn-approval`;
  return api('POST', path, { ...body, approvalId: item.approvalId });
}

export function ApprovalCard({ item, onDecided }: { item: PendingApprovalItem; onDecided: (outcome: Outcome) => void }) {
  const [comment, setComment] = useState('');
  const [editing, setEditing] = useState(false);
  const [argsText, setArgsText] = useState(() => JSON.stringify(item.args, null, 2));
  const [busy, setBusy] = useState(false);
  const label = `${item.toolName ?? 'Step'} in ${item.automationName}`;
  const check = editing ? checkArgs(argsText, item.inputSchema) : null;
  const titleId = `approval-${item.approvalId}`;

  const send = async (body: Decision, verb: string) => {
    setBusy(true);
    try {
      await decide(item, comment.trim() ? { ...body, comment: comment.trim() } : body);
      onDecided({ approvalId: item.approvalId, label, ok: true, message: `${verb}: ${label}.` });
    } catch (error) {
      const failure = error as ApiError;
      onDecided({ approvalId: item.approvalId, label, ok: false, message: `Could not decide ${label} (${failure.status} ${failure.code}): ${failure.message}` });
    } finally {
      setBusy(false);
    }
  };

  return (
    <li class="approval" aria-labelledby={titleId}>
      <h2 id={titleId}>{label}</h2>
      <p class="meta">
        <span class="badge">{item.kind === 'run' ? 'flow run' : item.kind}</span>
        <a href={`/console/sessions/${item.sessionId}`} onClick={onLinkClick}>{item.sessionTitle ?? `Session …${item.sessionId.slice(-8)}`}</a>
        <span>requested <time dateTime={item.requestedAt}>{formatTime(item.requestedAt)}</time></span>
      </p>
      {/* Keys: without them Preact may reuse the comment's <label> for the editor and carry its textarea over. */}
      {editing ? (
        <label key="editor">
          Arguments (JSON)
          <textarea rows={8} spellcheck={false} value={argsText} onInput={(e) => setArgsText(e.currentTarget.value)} aria-invalid={check?.ok === false} />
        </label>
      ) : (
        <pre key="proposal" aria-label="Proposed arguments">{JSON.stringify(item.args, null, 2)}</pre>
      )}
      {check?.ok === false && (
        <ul class="error" aria-label="Problems with the arguments">
          {check.problems.map((problem) => <li key={problem}>{problem}</li>)}
        </ul>
      )}
      <label key="comment">
        Comment <small>(optional, sent with either decision)</small>
        <textarea rows={2} maxLength={2000} value={comment} onInput={(e) => setComment(e.currentTarget.value)} />
      </label>
      <div class="actions">
        {editing ? (
          <>
            <button type="button" disabled={busy || check?.ok !== true} onClick={() => check?.ok && send({ decision: 'approved', editedArgs: check.value }, 'Approved with edited arguments')}>Approve with these arguments</button>
            <button type="button" class="secondary" disabled={busy} onClick={() => setEditing(false)}>Discard edits</button>
          </>
        ) : (
          <>
            <button type="button" disabled={busy} onClick={() => send({ decision: 'approved' }, 'Approved')}>Approve</button>
            {item.editable && <button type="button" class="secondary" disabled={busy} onClick={() => setEditing(true)}>Edit arguments</button>}
          </>
        )}
        <button type="button" class="danger" disabled={busy} onClick={() => send({ decision: 'rejected' }, 'Rejected')}>Reject</button>
      </div>
    </li>
  );
}
