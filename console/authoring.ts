// Calls to the authoring routes, which take `sv_`/`svu_` only (SPEC): a 1-hour `svu_` minted from the cookie, held in memory.
import { api, ApiError } from './api';
import type { operations } from '../http/client/schema';

/** Renew this long before the token's end, so a call never leaves with one that dies on the way. */
const RENEW_BEFORE_MS = 5 * 60_000;

let held: { token: string; renewAt: number } | null = null;
let minting: Promise<string> | null = null;

/** Never in localStorage or a cookie: a token in memory dies with the tab, and a page reload mints a new one. */
function token(): Promise<string> {
  if (held && Date.now() < held.renewAt) return Promise.resolve(held.token);
  minting ??= api<{ token: string; expiresAt: string }>('POST', '/auth/token')
    .then(({ token, expiresAt }) => {
      // The lifetime as this browser's clock measures it (a skewed clock cannot stretch it past an hour).
      const lifetime = Math.min(Date.parse(expiresAt) - Date.now(), 60 * 60_000);
      held = { token, renewAt: Date.now() + lifetime - RENEW_BEFORE_MS };
      return token;
    })
    .finally(() => {
      minting = null;
    });
  return minting;
}

/** Drops the token (sign-out, or a token the service no longer accepts). */
export function forgetAuthoringToken(): void {
  held = null;
}

/**
 * `method /api/v1/authoring<path>` with the token as bearer. A token the service refuses answers the uniform 404,
 * like an unknown id: one retry with a fresh token tells the two apart.
 */
export async function authoring<T>(method: string, path: string, body?: unknown): Promise<T> {
  const send = async () => api<T>(method, `/authoring${path}`, body, { authorization: `Bearer ${await token()}` });
  try {
    return await send();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    forgetAuthoringToken();
    return send();
  }
}

/** The API's own types for these screens (generated from the OpenAPI document). */
type Json<Op extends keyof operations, Status extends number = 200> = operations[Op]['responses'] extends Record<Status, { content: { 'application/json': infer B } }> ? B : never;
export type AgentDetail = Json<'getAutomation'>;
export type Setup = NonNullable<AgentDetail['setup']>;
export type VerifyReport = Json<'verifyAutomation'>;
export type Finding = VerifyReport['findings'][number];
export type Warning = VerifyReport['warnings'][number];
export type Published = Json<'publishAutomation', 201>;
export type RevisionPage = Json<'listAutomationRevisions'>;
export type Revision = RevisionPage['revisions'][number];
export type AutomationPage = Json<'listAutomations'>;
export type FlowRead = Json<'readFlow'>;
export type KnowledgeModule = Json<'listKnowledgeModules'>['modules'][number];
export type ModuleDetail = Json<'getKnowledgeModule'>;
export type Article = Json<'getArticle'>;
export type KnowledgeBase = Json<'listKnowledgeBases'>['bases'][number];
export type ArticlePage = Json<'listArticles'>;
export type RunAnswer = Json<'consoleRunAgent', 202>;
