// Owns applying an organization's knowledge: bases, articles (published ones indexed), modules and memberships.
import { newId } from '../ids.js';
import type { ApplyContext, OrganizationIds } from './apply-context.js';
import { formatPath } from './manifest-error.js';
import type { OrganizationManifest } from './organization.schema.js';

export async function applyKnowledge(ctx: ApplyContext, ids: OrganizationIds, org: OrganizationManifest, o: number): Promise<void> {
  const repo = ctx.repos.knowledge;
  const articles = new Map<string, string>();
  const P = ['organizations', o, 'knowledge'];

  for (const [b, base] of org.knowledge.bases.entries()) {
    const domainId = base.domain === undefined ? null : ids.domains.get(base.domain)!;
    let baseId = await ctx.book.lookup(ids.scope, base.ref, 'knowledge_base', formatPath([...P, 'bases', b]), async (id) => (await repo.base(id))?.orgId === ids.orgId);
    if (baseId === undefined) {
      baseId = newId();
      await repo.insertBase({ id: baseId, orgId: ids.orgId, domainId, name: base.name, createdAt: ctx.now });
    } else {
      const row = (await repo.base(baseId))!;
      if (row.name !== base.name || row.domainId !== domainId) await repo.updateBase(baseId, base.name, domainId);
    }
    await ctx.book.remember(ids.scope, base.ref, 'knowledge_base', baseId);
    ctx.refs[base.ref] = baseId;

    for (const [a, article] of base.articles.entries()) {
      const path = formatPath([...P, 'bases', b, 'articles', a]);
      let articleId = await ctx.book.lookup(ids.scope, article.ref, 'article', path, async (id) => (await repo.article(id))?.baseId === baseId);
      let titleChanged = false;
      if (articleId === undefined) {
        articleId = newId();
        await repo.insertArticle({
          id: articleId,
          baseId: baseId!,
          orgId: ids.orgId,
          title: article.title,
          draftBody: article.body,
          createdBy: null,
          createdAt: ctx.now,
          updatedAt: ctx.now,
        });
      } else {
        const row = (await repo.article(articleId))!;
        titleChanged = row.title !== article.title;
        if (titleChanged || row.draftBody !== article.body) await repo.updateArticleDraft(articleId, article.title, article.body, ctx.now);
      }
      // Publishing (and re-indexing) only when the published text would change; never unpublishes.
      if (article.published) {
        const row = (await repo.article(articleId))!;
        if (row.publishedAt === null || row.publishedBody !== row.draftBody || titleChanged) await repo.publishArticle(articleId, ctx.now);
      }
      await ctx.book.remember(ids.scope, article.ref, 'article', articleId);
      ctx.refs[article.ref] = articleId;
      articles.set(article.ref, articleId);
    }
  }

  for (const [m, module] of org.knowledge.modules.entries()) {
    const fields = {
      kind: module.kind,
      domainId: module.domain === undefined ? null : ids.domains.get(module.domain)!,
      name: module.name,
      description: module.description ?? null,
    };
    let moduleId = await ctx.book.lookup(
      ids.scope, module.ref, 'knowledge_module', formatPath([...P, 'modules', m]), async (id) => (await repo.module(id))?.orgId === ids.orgId,
    );
    if (moduleId === undefined) {
      moduleId = newId();
      await repo.insertModule({ id: moduleId, orgId: ids.orgId, ...fields, createdAt: ctx.now });
    } else {
      const row = (await repo.module(moduleId))!;
      if ((Object.keys(fields) as Array<keyof typeof fields>).some((key) => row[key] !== fields[key])) await repo.updateModule({ id: moduleId, ...fields });
    }
    await ctx.book.remember(ids.scope, module.ref, 'knowledge_module', moduleId);
    ctx.refs[module.ref] = moduleId;
    ids.modules.set(module.ref, moduleId);
    // Additive, like the authoring route: memberships added in the product are kept.
    for (const ref of module.articles) await repo.addModuleArticle(moduleId, articles.get(ref)!, ctx.now);
  }
}
