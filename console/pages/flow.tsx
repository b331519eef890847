// One flow: its latest version's step graph and its versions (make any one current).
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import type { FlowRead } from '../authoring';
import { FlowGraph, type FlowDefinition } from '../flow-graph';
import { Revisions } from '../revisions';
import { onLinkClick, useTitle } from '../router';

export function FlowPage({ flowId }: { flowId: string }) {
  const [read, setRead] = useState<FlowRead | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  useTitle(read?.flow.name ?? 'Flow');

  useEffect(() => {
    let live = true;
    api<FlowRead>('GET', `/flows/${flowId}`)
      .then((answer) => live && (setRead(answer), setError(null)))
      .catch((failure: ApiError) => live && setError(failure.status === 404 ? 'This flow does not exist or you cannot see it.' : failure.message));
    return () => {
      live = false;
    };
  }, [flowId, version]);

  return (
    <main class="page">
      <p><a href="/console/flows" onClick={onLinkClick}>Flows</a></p>
      <h1>{read?.flow.name ?? 'Flow'}</h1>
      {error && <p role="alert" class="error">{error}</p>}
      {!read && !error && <p role="status">Loading the flow…</p>}
      {read && (
        <>
          <p class="meta">
            {read.flow.description && <span>{read.flow.description}</span>}
            <span class="badge">{read.flow.publishedVersion === null ? 'not published' : `published: version ${read.flow.publishedVersion}`}</span>
            <span>latest: version {read.flow.latestVersion}</span>
          </p>
          <div class="columns">
            <div class="stack">
              {read.flow.latestVersion !== read.flow.publishedVersion && (
                <p class="muted">The graph below is version {read.flow.latestVersion}, the latest; runs use the published version.</p>
              )}
              <FlowGraph definition={read.definition as FlowDefinition} />
            </div>
            <Revisions automationId={flowId} kind="flow" version={version} canEdit onChanged={() => setVersion((v) => v + 1)} />
          </div>
        </>
      )}
    </main>
  );
}
