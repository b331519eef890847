// One knowledge article: edit its draft, publish it (agents search the published text), or unpublish it.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { authoring, type Article } from '../authoring';
import { formatTime } from '../format';
import { onLinkClick, useTitle } from '../router';

export function ArticlePage({ articleId }: { articleId: string }) {
  const [article, setArticle] = useState<Article | null>(null);
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useTitle(article?.title ?? 'Article');

  const show = (fresh: Article) => {
    setArticle(fresh);
    setTitle(fresh.title);
    setBody(fresh.draftBody ?? '');
  };
  useEffect(() => {
    authoring<Article>('GET', `/articles/${articleId}`)
      .then(show)
      .catch((failure: ApiError) => setError(failure.status === 404 ? 'This article does not exist or you cannot edit it.' : failure.message));
  }, [articleId]);

  const dirty = article !== null && (title !== article.title || body !== (article.draftBody ?? ''));
  /** Each action saves the draft first when it changed, so "Publish" publishes what is on screen. */
  const act = async (action: 'save' | 'publish' | 'unpublish') => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      let fresh = article!;
      if (dirty) fresh = await authoring<Article>('PATCH', `/articles/${articleId}`, { title, draftBody: body });
      if (action === 'publish') fresh = await authoring<Article>('POST', `/articles/${articleId}/publish`);
      if (action === 'unpublish') fresh = await api<Article>('POST', `/authoring/articles/${articleId}/unpublish`);
      show(fresh);
      setNotice(action === 'publish' ? 'Published: agents now find this text.' : action === 'unpublish' ? 'Unpublished: agents no longer find this article.' : 'Draft saved. Agents keep finding the published text until you publish.');
    } catch (failure) {
      setError((failure as ApiError).message);
    } finally {
      setBusy(false);
    }
  };

  const differs = article?.published && article.publishedBody !== (article.draftBody ?? '');
  return (
    <main class="page">
      <p><a href="/console/knowledge" onClick={onLinkClick}>Knowledge</a></p>
      <h1>{article?.title ?? 'Article'}</h1>
      {!article && !error && <p role="status">Loading the article…</p>}
      {!article && error && <p role="alert" class="error">{error}</p>}
      {article && (
        <>
          <p class="meta">
            <span class="badge">{article.published ? 'published' : 'draft, not published'}</span>
            {article.publishedAt && <span>published <time dateTime={article.publishedAt}>{formatTime(article.publishedAt)}</time></span>}
            {(dirty || differs) && <span class="badge">the draft differs from the published text</span>}
          </p>
          <form class="stack" aria-label="Edit the article" onSubmit={(e) => (e.preventDefault(), void act('save'))}>
            <label>
              Title
              <input value={title} maxLength={240} onInput={(e) => setTitle(e.currentTarget.value)} required />
            </label>
            <label>
              Draft
              <textarea class="plain" rows={14} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
            </label>
            <span class="actions">
              <button type="submit" class="secondary" disabled={busy || !dirty}>Save draft</button>
              <button type="button" disabled={busy} onClick={() => void act('publish')}>Publish</button>
              {article.published && <button type="button" class="secondary" disabled={busy} onClick={() => void act('unpublish')}>Unpublish</button>}
            </span>
          </form>
          {notice && <p role="status" class="ok">{notice}</p>}
          {error && <p role="alert" class="error">{error}</p>}
          {article.published && (
            <section aria-labelledby="published-heading">
              <h2 id="published-heading">Published text</h2>
              <p class="published-text">{article.publishedBody}</p>
            </section>
          )}
        </>
      )}
    </main>
  );
}
