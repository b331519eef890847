// Owns applying partner platforms: the partner (grant, quota, template), `svp_` keys, apps and templates.
import type { Awaitable } from '../../storage/port/storage.js';
import { hashSecret, hintOf, mintSecret } from '../auth/secrets.js';
import { newId } from '../ids.js';
import type { ApplyContext } from './apply-context.js';
import { canonicalJson } from './canonical-json.js';
import { formatPath } from './manifest-error.js';
import type { PartnerManifest } from './partner.schema.js';
import { GLOBAL_SCOPE } from './ref-book.js';

export async function applyPartner(ctx: ApplyContext, partner: PartnerManifest, p: number): Promise<void> {
  const repo = ctx.repos.partners;
  const P = ['partners', p];
  let partnerId = await ctx.book.lookup(GLOBAL_SCOPE, partner.ref, 'partner', formatPath(P), async (id) => (await repo.partner(id)) !== undefined);
  if (partnerId === undefined) {
    partnerId = newId();
    // Grant and template are settled below, once the templates exist.
    await repo.insertPartner({
      id: partnerId,
      name: partner.name,
      suspended: partner.suspended,
      provisioningEnabled: false,
      quotaTotal: 0,
      quotaUsed: 0,
      templateId: null,
      createdAt: ctx.now,
    });
  }
  await ctx.book.remember(GLOBAL_SCOPE, partner.ref, 'partner', partnerId);
  ctx.refs[partner.ref] = partnerId;
  const owned = async <T extends { partnerId: string }>(record: Awaitable<T | undefined>) => (await record)?.partnerId === partnerId;

  for (const [k, keyRef] of partner.keys.entries()) {
    const keyId = await ctx.book.lookup(GLOBAL_SCOPE, keyRef, 'partner_key', formatPath([...P, 'keys', k]), (id) => owned(repo.partnerKey(id)));
    if (keyId !== undefined) {
      ctx.refs[keyRef] = keyId;
      continue;
    }
    // Printed once only: storage keeps the SHA-256 of the secret and a hint.
    const secret = mintSecret('svp_');
    const id = newId();
    await repo.insertPartnerKey({ id, partnerId: partnerId!, keyHash: hashSecret(secret), hint: hintOf(secret), provisioningEnabled: true, createdAt: ctx.now, revokedAt: null });
    await ctx.book.remember(GLOBAL_SCOPE, keyRef, 'partner_key', id);
    ctx.refs[keyRef] = secret;
  }

  for (const [a, app] of partner.apps.entries()) {
    let appId = await ctx.book.lookup(GLOBAL_SCOPE, app.ref, 'partner_app', formatPath([...P, 'apps', a]), (id) => owned(repo.partnerApp(id)));
    if (appId === undefined) {
      appId = newId();
      await repo.insertPartnerApp({ id: appId, partnerId: partnerId!, name: app.name, createdAt: ctx.now });
    } else if ((await repo.partnerApp(appId))!.name !== app.name) {
      await repo.renamePartnerApp(appId, app.name);
    }
    await ctx.book.remember(GLOBAL_SCOPE, app.ref, 'partner_app', appId);
    ctx.refs[app.ref] = appId;
  }

  const templates = new Map<string, string>();
  for (const [t, template] of partner.templates.entries()) {
    const { ref, suspended, ...rest } = template;
    const path = formatPath([...P, 'templates', t]);
    let templateId =
      (await ctx.book.lookup(GLOBAL_SCOPE, ref, 'partner_template', path, (id) => owned(repo.partnerTemplate(id)))) ??
      (await repo.partnerTemplateByRef(partnerId!, ref))?.id;
    if (templateId === undefined) {
      templateId = newId();
      await repo.insertPartnerTemplate({ id: templateId, partnerId: partnerId!, ref, suspended, definition: rest, createdAt: ctx.now });
    } else {
      const stored = (await repo.partnerTemplate(templateId))!;
      if (canonicalJson(stored.definition) !== canonicalJson(rest) || stored.suspended !== suspended) await repo.updatePartnerTemplate(templateId, rest, suspended);
    }
    await ctx.book.remember(GLOBAL_SCOPE, ref, 'partner_template', templateId);
    ctx.refs[ref] = templateId;
    templates.set(ref, templateId);
  }

  const settled = {
    name: partner.name,
    suspended: partner.suspended,
    provisioningEnabled: partner.provisioning?.enabled ?? false,
    quotaTotal: partner.provisioning?.quota ?? 0,
    templateId: partner.provisioning?.template === undefined ? null : templates.get(partner.provisioning.template)!,
  };
  const stored = (await repo.partner(partnerId))!;
  if ((Object.keys(settled) as Array<keyof typeof settled>).some((key) => stored[key] !== settled[key])) await repo.updatePartner({ id: partnerId, ...settled });
}
