// `npm start`'s demo: seeds the demo workspace (or finds the one an earlier start seeded), mints a fresh demo key,
// and prints how to try it.
import { hashSecret, hintOf, mintSecret } from './auth/secrets.js';
import { newId } from './ids.js';
import type { ApplyManifestResult } from './manifest/apply.js';
import { GLOBAL_SCOPE } from './manifest/ref-book.js';
import type { Storage } from '../storage/port/storage.js';

/** Refs of examples/demo.workspace.json this banner relies on. */
const DEMO_REFS = { org: 'demo', user: 'demo-owner', trigger: 'demo-trigger' } as const;
/** Only seedDemo names a key so: finding one marks a database the demo was seeded into. */
const DEMO_KEY_NAME = 'demo (npm start)';
/** The demo owner's console sign-in, as examples/demo.workspace.json sets it (the console test signs in with what the banner prints). */
export const DEMO_SIGN_IN = { email: 'demo@switchyard.local', password: 'demo-password' } as const;

export interface DemoSeed {
  apiKey: string;
  triggerId: string;
  banner(baseUrl: string): string;
}

interface Seedable {
  readonly store: Storage;
  applyManifest(manifest: unknown): Promise<ApplyManifestResult>;
}

/** The demo workspace's ids in a database. */
export interface DemoWorkspace {
  orgId: string;
  userId: string;
  triggerId: string;
}

/**
 * Applies the demo manifest (idempotent) and mints a new key for the demo owner, revoking the key the
 * previous start printed: only hashes are stored, so a key can be shown once only.
 */
export async function seedDemo(service: Seedable, manifest: unknown): Promise<DemoSeed> {
  const { refs } = await service.applyManifest(manifest);
  const orgId = refs[DEMO_REFS.org];
  const userId = refs[DEMO_REFS.user];
  const triggerId = refs[DEMO_REFS.trigger];
  if (!orgId || !userId || !triggerId) throw new Error('the demo manifest lacks the demo org, owner or trigger ref');
  return mintDemoKey(service.store, { orgId, userId, triggerId });
}

/**
 * The demo workspace an earlier seedDemo left in this database, or null. A workspace that merely uses the same
 * refs is not the demo: only seedDemo mints a key named DEMO_KEY_NAME.
 */
export async function seededDemo(store: Pick<Storage, 'repos'>): Promise<DemoWorkspace | null> {
  const { tenancy, credentials } = store.repos;
  const org = await tenancy.manifestRef(GLOBAL_SCOPE, DEMO_REFS.org);
  const user = await tenancy.manifestRef(DEMO_REFS.org, DEMO_REFS.user);
  const trigger = await tenancy.manifestRef(DEMO_REFS.org, DEMO_REFS.trigger);
  if (org?.entity !== 'organization' || user?.entity !== 'user' || trigger?.entity !== 'trigger') return null;
  if ((await tenancy.organization(org.entityId)) === undefined) return null;
  const marked = (await credentials.apiKeysOfUser(user.entityId, org.entityId)).some((key) => key.name === DEMO_KEY_NAME);
  return marked ? { orgId: org.entityId, userId: user.entityId, triggerId: trigger.entityId } : null;
}

/** Mints a new demo key for the demo owner and revokes the one the previous start printed. */
export async function mintDemoKey(store: Storage, demo: DemoWorkspace): Promise<DemoSeed> {
  const { orgId, userId, triggerId } = demo;
  const apiKey = mintSecret('sv_');
  await store.writer.submit(async (tx) => {
    const { credentials } = tx.repos;
    const now = Date.now();
    for (const key of await credentials.apiKeysOfUser(userId, orgId)) {
      if (key.name === DEMO_KEY_NAME && key.revokedAt === null) await credentials.revokeApiKey(key.id, now);
    }
    await credentials.insertApiKey({ id: newId(), userId, orgId, name: DEMO_KEY_NAME, keyHash: hashSecret(apiKey), hint: hintOf(apiKey), createdAt: now, revokedAt: null });
  });
  return {
    apiKey,
    triggerId,
    banner(baseUrl) {
      const body = JSON.stringify({ triggerId, input: { prompt: 'How do I fire a trigger?' } });
      return [
        '',
        `Switchyard is running at ${baseUrl}  (API base: ${baseUrl}/api/v1)`,
        `Web console: ${baseUrl}/console  (sign in as ${DEMO_SIGN_IN.email} / ${DEMO_SIGN_IN.password})`,
        `Demo API key (shown once; a new one is minted at each start): ${apiKey}`,
        '',
        'Fire the demo trigger (one agent and one flow subscribe to it):',
        `  curl -s -X POST ${baseUrl}/api/v1/triggers/fire \\`,
        `    -H 'Authorization: Bearer ${apiKey}' -H 'Content-Type: application/json' \\`,
        `    -d '${body}'`,
        '',
        'Then read a session it started:',
        `  curl -s ${baseUrl}/api/v1/agents/sessions/<sessionId> -H 'Authorization: Bearer ${apiKey}'`,
        '',
        `OpenAPI: ${baseUrl}/api/v1/openapi.json   Health: ${baseUrl}/healthz   Stop: Ctrl-C`,
        '',
      ].join('\n');
    },
  };
}
