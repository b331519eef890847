// The articles of one knowledge module, or of one knowledge base, each linking to its editor.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { authoring, type Article, type ArticlePage, type KnowledgeBase, type ModuleDetail } from '../authoring';
import { formatTime } from '../format';
import { navigate, onLinkClick, useTitle } from '../router';

type Row = Pick<Article, 'id' | 'title' | 'published' | 'publishedAt'>;

function ArticleList({ articles, label }: { articles: Row[]; label: string }) {
  if (articles.length === 0) return <p>No articles here yet.</p>;
  return (
    <ul class="list" aria-label={label}>
      {articles.map((a) => (
        <li key={a.id}>
          <a href={`/console/knowledge/articles/${a.id}`} onClick={onLinkClick}>{a.title}</a>
          <span class="meta">
            <span class="badge">{a.published ? 'published' : 'draft'}</span>
            {a.publishedAt && <time dateTime={a.publishedAt}>{formatTime(a.publishedAt)}</time>}
          </span>
        </li>
      ))}
    </ul>
  );
}

const MODULE_ERROR: Record<number, string> = {
  403: 'Reading and editing articles needs the Editor role in their domain (organization articles: an organization Owner or Admin).',
  404: 'This module does not exist or you cannot see it.',
};

export function KnowledgeModulePage({ moduleId }: { moduleId: string }) {
  const [module, setModule] = useState<ModuleDetail | null>(null);
  const [articles, setArticles] = useState<Row[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useTitle(module?.name ?? 'Knowledge module');

  useEffect(() => {
    let live = true;
    (async () => {
      const detail = await authoring<ModuleDetail>('GET', `/knowledge-modules/${moduleId}`);
      if (!live) return;
      setModule(detail);
      // A module lists ids; each article is one read (modules hold tens of articles, not thousands).
      const rows = await Promise.all(detail.articleIds.map((id) => authoring<Article>('GET', `/articles/${id}`)));
      if (live) setArticles(rows);
    })().catch((failure: ApiError) => live && setError(MODULE_ERROR[failure.status] ?? failure.message));
    return () => {
      live = false;
    };
  }, [moduleId]);

  return (
    <main class="page">
      <p><a href="/console/knowledge" onClick={onLinkClick}>Knowledge</a></p>
      <h1>{module?.name ?? 'Knowledge module'}</h1>
      {module?.description && <p>{module.description}</p>}
      {error && <p role="alert" class="error">{error}</p>}
      {!articles && !error && <p role="status">Loading articles…</p>}
      {articles && <ArticleList articles={articles} label="Articles" />}
    </main>
  );
}

export function KnowledgeBasePage({ baseId }: { baseId: string }) {
  const [articles, setArticles] = useState<Row[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [base, setBase] = useState<KnowledgeBase | null>(null);
  const [title, setTitle] = useState('');
  useTitle(base?.name ?? 'Knowledge base');
  const page = (cursor?: string) => api<ArticlePage>('GET', `/authoring/knowledge-bases/${baseId}/articles?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);

  useEffect(() => {
    let live = true;
    page()
      .then((first) => live && (setArticles(first.articles), setNextCursor(first.nextCursor)))
      .catch((failure: ApiError) => live && setError(failure.status === 404 ? 'This knowledge base does not exist or you cannot see it.' : failure.message));
    authoring<{ bases: KnowledgeBase[] }>('GET', '/knowledge-bases')
      .then(({ bases }) => live && setBase(bases.find((b) => b.id === baseId) ?? null))
      .catch(() => undefined); // The name is a heading nicety; the list above reports real failures.
    return () => {
      live = false;
    };
  }, [baseId]);
  /** A new article starts as an unpublished draft; its editor opens to write and publish it. */
  const create = async (event: Event) => {
    event.preventDefault();
    try {
      const created = await authoring<Article>('POST', `/knowledge-bases/${baseId}/articles`, { title, draftBody: null });
      navigate(`/console/knowledge/articles/${created.id}`);
    } catch (failure) {
      setError((failure as ApiError).message);
    }
  };
  const more = async () => {
    if (!nextCursor || !articles) return;
    const next = await page(nextCursor).catch((failure: ApiError) => (setError(failure.message), null));
    if (next) (setArticles([...articles, ...next.articles]), setNextCursor(next.nextCursor));
  };

  return (
    <main class="page">
      <p><a href="/console/knowledge" onClick={onLinkClick}>Knowledge</a></p>
      <h1>{base?.name ?? 'Knowledge base'}</h1>
      {error && <p role="alert" class="error">{error}</p>}
      {!articles && !error && <p role="status">Loading articles…</p>}
      {articles && <ArticleList articles={articles} label="Articles" />}
      {nextCursor && <button type="button" onClick={more}>Show more</button>}
      <form class="publish" aria-label="New article" onSubmit={create}>
        <label>
          New article title
          <input value={title} maxLength={240} required onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <button type="submit">Create draft</button>
      </form>
    </main>
  );
}
