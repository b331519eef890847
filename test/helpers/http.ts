// Small fetch wrappers for tests against the real server.

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function call(url: string, init: RequestInit & { json?: unknown } = {}): Promise<Answer> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const response = await fetch(url, { ...init, headers, body });
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export const bearer = (secret: string): Record<string, string> => ({ authorization: `Bearer ${secret}` });
