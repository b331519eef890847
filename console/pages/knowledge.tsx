// Knowledge: the modules agents search (organization-wide and per domain) and the bases articles are written in.
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { authoring, type KnowledgeBase, type KnowledgeModule } from '../authoring';
import { onLinkClick, useTitle } from '../router';

export function KnowledgePage() {
  useTitle('Knowledge');
  const [modules, setModules] = useState<KnowledgeModule[] | null>(null);
  const [bases, setBases] = useState<KnowledgeBase[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    Promise.all([authoring<{ modules: KnowledgeModule[] }>('GET', '/knowledge-modules'), authoring<{ bases: KnowledgeBase[] }>('GET', '/knowledge-bases')])
      .then(([m, b]) => live && (setModules(m.modules), setBases(b.bases)))
      .catch((failure: ApiError) => live && setError(failure.message));
    return () => {
      live = false;
    };
  }, []);

  return (
    <main class="page">
      <h1>Knowledge</h1>
      {error && <p role="alert" class="error">{error}</p>}
      {!modules && !error && <p role="status">Loading knowledge…</p>}
      {modules && (
        <section aria-labelledby="modules-heading">
          <h2 id="modules-heading">Modules</h2>
          <p class="muted">An agent searches the published articles of the modules its knowledge selection names.</p>
          {modules.length === 0 ? (
            <p>No modules yet. Create one with POST /api/v1/authoring/knowledge-modules.</p>
          ) : (
            <ul class="list" aria-label="Modules">
              {modules.map((m) => (
                <li key={m.id}>
                  <span class="stack-tight">
                    <a href={`/console/knowledge/${m.id}`} onClick={onLinkClick}>{m.name}</a>
                    {m.description && <small>{m.description}</small>}
                  </span>
                  <span class="badge">{m.kind === 'org' ? 'organization' : 'domain'}</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      {bases && (
        <section aria-labelledby="bases-heading">
          <h2 id="bases-heading">Knowledge bases</h2>
          {bases.length === 0 ? (
            <p>You cannot write articles in any knowledge base here (that needs the Editor role in a domain).</p>
          ) : (
            <ul class="list" aria-label="Knowledge bases">
              {bases.map((b) => (
                <li key={b.id}>
                  <a href={`/console/knowledge/bases/${b.id}`} onClick={onLinkClick}>{b.name}</a>
                  <span class="badge">{b.domainId === null ? 'organization' : 'domain'}</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </main>
  );
}
