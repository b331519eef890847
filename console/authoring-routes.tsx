// Which agents, flows or knowledge page a path names (null: not one of these pages); the nav links for them.
import type { JSX } from 'preact';
import { onLinkClick } from './router';
import { AgentPage } from './pages/agent';
import { ArticlePage } from './pages/article';
import { AutomationsPage } from './pages/automations';
import { FlowPage } from './pages/flow';
import { KnowledgePage } from './pages/knowledge';
import { KnowledgeBasePage, KnowledgeModulePage } from './pages/knowledge-articles';

export function authoringPage(path: string): JSX.Element | null {
  const [, page, id, view] = path.replace(/\/+$/, '').split('/').slice(1);
  const at = (value: string | undefined) => decodeURIComponent(value ?? '');
  if (page === 'agents') return id === undefined ? <AutomationsPage key="agent" kind="agent" /> : view === undefined ? <AgentPage key={id} automationId={at(id)} /> : null;
  if (page === 'flows') return id === undefined ? <AutomationsPage key="flow" kind="flow" /> : view === undefined ? <FlowPage key={id} flowId={at(id)} /> : null;
  if (page !== 'knowledge') return null;
  if (id === undefined) return <KnowledgePage />;
  if (view === undefined) return <KnowledgeModulePage key={id} moduleId={at(id)} />;
  if (id === 'bases') return <KnowledgeBasePage key={view} baseId={at(view)} />;
  if (id === 'articles') return <ArticlePage key={view} articleId={at(view)} />;
  return null;
}

export function AuthoringLinks({ path }: { path: string }) {
  return (
    <>
      {(['agents', 'flows', 'knowledge'] as const).map((page) => (
        <a key={page} href={`/console/${page}`} onClick={onLinkClick} aria-current={path.startsWith(`/console/${page}`) ? 'page' : undefined}>
          {page[0]!.toUpperCase() + page.slice(1)}
        </a>
      ))}
    </>
  );
}
