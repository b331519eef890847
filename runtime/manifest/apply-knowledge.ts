// Owns applying an organization's knowledge: bases, articles (published ones indexed), modules and memberships.
import { newId } from '../ids.js';
import type { ApplyContext, OrganizationIds } from './apply-context.js';
import { formatPath } from './manifest-error.js';
import type { OrganizationManifest } from './organization.schema.js';

export function applyKnowledge(ctx: ApplyContext, ids: OrganizationIds, org: OrganizationManifest, o: number): void {
  const repo = ctx.repos.knowledge;
  const articles = new Map<string, string>();
  const P = ['organizations', o, 'knowledge'];

  org.knowledge.bases.forEach((base, b) => {
    const domainId = base.domain === undefined ? null : ids.domains.get(base.domain)!;
    let baseId = ctx.book.lookup(ids.scope, base.ref, 'knowledge_base', formatPath([...P, 'bases', b]), (id) => repo.base(id)?.org_id === ids.orgId);
    if (baseId === undefined) {
      baseId = newId();
      repo.insertBase({ id: baseId, org_id: ids.orgId, domain_id: domainId, name: base.name, created_at: ctx.now });
    } else {
      const row = repo.base(baseId)!;
      if (row.name !== base.name || row.domain_id !== domainId) repo.updateBase(baseId, base.name, domainId);
    }
    ctx.book.remember(ids.scope, base.ref, 'knowledge_base', baseId);
    ctx.refs[base.ref] = baseId;

    base.articles.forEach((article, a) => {
      const path = formatPath([...P, 'bases', b, 'articles', a]);
      let articleId = ctx.book.lookup(ids.scope, article.ref, 'article', path, (id) => repo.article(id)?.base_id === baseId);
      let titleChanged = false;
      if (articleId === undefined) {
        articleId = newId();
        repo.insertArticle({
          id: articleId,
          base_id: baseId!,
          org_id: ids.orgId,
          title: article.title,
          draft_body: article.body,
          created_by: null,
          created_at: ctx.now,
          updated_at: ctx.now,
        });
      } else {
        const row = repo.article(articleId)!;
        titleChanged = row.title !== article.title;
        if (titleChanged || row.draft_body !== article.body) repo.updateArticleDraft(articleId, article.title, article.body, ctx.now);
      }
      // Publishing (and re-indexing) only when the published text would change; never unpublishes.
      if (article.published) {
        const row = repo.article(articleId)!;
        if (row.published_at === null || row.published_body !== row.draft_body || titleChanged) repo.publishArticle(articleId, ctx.now);
      }
      ctx.book.remember(ids.scope, article.ref, 'article', articleId);
      ctx.refs[article.ref] = articleId;
      articles.set(article.ref, articleId);
    });
  });

  org.knowledge.modules.forEach((module, m) => {
    const fields = {
      kind: module.kind,
      domain_id: module.domain === undefined ? null : ids.domains.get(module.domain)!,
      name: module.name,
      description: module.description ?? null,
    };
    let moduleId = ctx.book.lookup(ids.scope, module.ref, 'knowledge_module', formatPath([...P, 'modules', m]), (id) => repo.module(id)?.org_id === ids.orgId);
    if (moduleId === undefined) {
      moduleId = newId();
      repo.insertModule({ id: moduleId, org_id: ids.orgId, ...fields, created_at: ctx.now });
    } else {
      const row = repo.module(moduleId)!;
      if ((Object.keys(fields) as Array<keyof typeof fields>).some((key) => row[key] !== fields[key])) repo.updateModule({ id: moduleId, ...fields });
    }
    ctx.book.remember(ids.scope, module.ref, 'knowledge_module', moduleId);
    ctx.refs[module.ref] = moduleId;
    ids.modules.set(module.ref, moduleId);
    // Additive, like the authoring route: memberships added in the product are kept.
    for (const ref of module.articles) repo.addModuleArticle(moduleId, articles.get(ref)!, ctx.now);
  });
}
