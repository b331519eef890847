// The contract workspace on a real server, with helpers for the management routes (issue 13 item 6).
import { bearer, call, type Answer } from '../../helpers/http.js';
import { startConversation, type Conversation } from '../sessions/conversation-fixture.js';

export interface ManageEnv {
  c: Conversation;
  url: string;
  /** A call with a user's `sv_` key (a ref like `ada`), a raw `authorization`/`cookie` header, or nothing. */
  as(who: string | { cookie: string } | { token: string } | null, method: string, path: string, json?: unknown): Promise<Answer>;
  /** Console login; returns the `service_session=…` cookie pair. */
  login(email: string, password: string): Promise<string>;
}

export async function startManage(t: { teardown(fn: () => unknown): void }): Promise<ManageEnv> {
  const c = await startConversation(t);
  const url = c.server.url;
  const as: ManageEnv['as'] = (who, method, path, json) => {
    let headers: Record<string, string> = {};
    if (typeof who === 'string') headers = bearer(c.key(who));
    else if (who !== null && 'cookie' in who) headers = { cookie: who.cookie };
    else if (who !== null) headers = bearer(who.token);
    return call(`${url}/api/v1${path}`, { method, headers, ...(json === undefined ? {} : { json }) });
  };
  return {
    c,
    url,
    as,
    async login(email, password) {
      const answer = await call(`${url}/api/v1/console/login`, { method: 'POST', json: { email, password } });
      if (answer.status !== 200) throw new Error(`login answered ${answer.status}`);
      return (answer.headers.get('set-cookie') ?? '').split(';')[0]!;
    },
  };
}
