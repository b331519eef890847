// The trigger-admin workspace on a real server, with one request helper for the management routes.
import { bearer, call, type Answer } from '../../helpers/http.js';
import { startTriggerServer, type TriggerServer } from '../triggers-admin/trigger-fixture.js';

export const UNKNOWN = '01a20378-0000-7000-8000-000000000000';

export interface Who {
  /** Console cookie of a workspace user (ada, bob, eve, ed, vic, gina). */
  user?: string;
  /** A bearer secret (sv_ key, svu_ token, or garbage). */
  key?: string;
}

export interface ManageServer extends TriggerServer {
  req(method: string, path: string, who: Who, json?: unknown): Promise<Answer>;
  /** A workspace key by ref (ada-key, bob-key, eve-key, vic-key, gina-key). */
  key(ref: string): string;
}

export async function startManageServer(t: { teardown(fn: () => unknown): void }): Promise<ManageServer> {
  const f = await startTriggerServer(t);
  return {
    ...f,
    key: (ref) => f.refs[ref]!,
    async req(method, path, who, json) {
      const headers: Record<string, string> = {};
      if (who.user) headers.cookie = await f.cookie(who.user);
      if (who.key) Object.assign(headers, bearer(who.key));
      return call(`${f.server.url}${path}`, { method, headers, ...(json === undefined ? {} : { json }) });
    },
  };
}

/** Follows nextCursor to the end; returns every item and how many pages it took. */
export async function allPages(fetchPage: (cursor: string | null) => Promise<Answer>, field: string): Promise<{ items: any[]; pages: number }> {
  const items: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const answer = await fetchPage(cursor);
    if (answer.status !== 200) throw new Error(`page ${pages}: ${answer.status} ${answer.text}`);
    items.push(...answer.json[field]);
    cursor = answer.json.nextCursor;
    pages += 1;
  } while (cursor !== null && pages < 100);
  return { items, pages };
}
