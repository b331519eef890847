// One agent: its Setup editor (editors), Run and Test run, and its revisions.
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { authoring, type AgentDetail, type Setup } from '../authoring';
import { useAutomations } from '../automations';
import { Revisions } from '../revisions';
import { navigate, onLinkClick, useTitle } from '../router';
import { RunAgent } from '../run-agent';
import { sameSetup, SetupEditor } from '../setup-editor';

type Detail = { state: 'loading' } | { state: 'ready'; agent: AgentDetail } | { state: 'read-only' } | { state: 'failed'; message: string };

export function AgentPage({ automationId }: { automationId: string }) {
  const summary = useAutomations().get(automationId);
  const [detail, setDetail] = useState<Detail>({ state: 'loading' });
  // Bumped by a publish or a rollback: the header, the run panel and the revisions reread.
  const [version, setVersion] = useState(0);
  const [draft, setDraft] = useState<Setup | null>(null);
  useTitle(detail.state === 'ready' ? detail.agent.name : summary?.name ?? 'Agent');

  useEffect(() => {
    let live = true;
    authoring<AgentDetail>('GET', `/automations/${automationId}`)
      .then((agent) => {
        if (!live) return;
        // A flow's id under /agents (an old link, a typed address): its own page shows its graph.
        if (agent.kind === 'flow') navigate(`/console/flows/${agent.id}`, true);
        else setDetail({ state: 'ready', agent });
      })
      .catch((failure: ApiError) => {
        if (!live) return;
        if (failure.status === 403) setDetail({ state: 'read-only' });
        else setDetail({ state: 'failed', message: failure.status === 404 ? 'This agent does not exist or you cannot see it.' : failure.message });
      });
    return () => {
      live = false;
    };
  }, [automationId, version]);

  if (detail.state === 'failed') {
    return (
      <main class="page">
        <h1>Agent</h1>
        <p role="alert" class="error">{detail.message} <a href="/console/agents" onClick={onLinkClick}>Back to the agents</a>.</p>
      </main>
    );
  }
  const agent = detail.state === 'ready' ? detail.agent : null;
  const name = agent?.name ?? summary?.name;
  const published = agent ? agent.published?.revision ?? null : summary?.publishedRevision ?? null;
  // Live while typing: the detail's flag is as of its last read, the saved draft is newer.
  const unpublishedChanges = !!agent && (draft && agent.published ? !sameSetup(draft, agent.published.setup) : agent.hasUnpublishedChanges);
  return (
    <main class="page">
      <p><a href="/console/agents" onClick={onLinkClick}>Agents</a></p>
      <h1>{name ?? 'Agent'}</h1>
      <p class="meta">
        {agent?.description && <span>{agent.description}</span>}
        <span class="badge">{published === null ? 'not published' : `published: revision ${published}`}</span>
        {unpublishedChanges && <span class="badge">unpublished changes</span>}
      </p>
      {detail.state === 'loading' && <p role="status">Loading the Setup…</p>}
      <div class="columns">
        <div class="stack">
          {detail.state === 'read-only' && <p>You can run this agent, but changing its Setup needs the Editor or Owner role in its domain.</p>}
          {agent && <SetupEditor key={automationId} automationId={automationId} initial={agent.setup ?? EMPTY_SETUP} onPublished={() => setVersion((v) => v + 1)} onSaved={setDraft} />}
        </div>
        <div class="stack">
          {(agent || summary) && <RunAgent automationId={automationId} publishedRevision={published} hasUnpublishedChanges={unpublishedChanges} />}
          <Revisions automationId={automationId} kind="agent" version={version} canEdit={agent !== null} onChanged={() => setVersion((v) => v + 1)} />
        </div>
      </div>
    </main>
  );
}

const EMPTY_SETUP = { principles: '', procedure: '', model: 'builtin:procedure', approvalTools: [] };
