// The web console's static files (built by scripts/build-console.ts into dist/console): pages, hashed assets, `/` -> `/console`.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AppError, notFound } from '../../runtime/errors.js';
import type { Services } from '../../runtime/services.js';
import type { HttpRequest, JsonReply, Route } from '../types.js';

/** Only same-origin code, styles and connections: no inline script, no third-party host (issue 14). */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = { 'content-security-policy': CONSOLE_CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
/** esbuild's `[name]-[hash]` names: a content hash makes a file immutable; nothing else (no `..`) is served. */
const HASHED_FILE = /^[a-z0-9_-]+-[A-Z0-9]{8}\.(js|css)$/i;

/** dist/console beside this module when packaged (dist/http/routes), the repository's dist/console from source. */
function consoleDir(): string {
  const packaged = fileURLToPath(new URL('../../console/', import.meta.url));
  return existsSync(`${packaged}index.html`) ? packaged : fileURLToPath(new URL('../../dist/console/', import.meta.url));
}

const cache = new Map<string, Buffer>();
function readAsset(name: string): Buffer | null {
  const hit = cache.get(name);
  if (hit) return hit;
  const path = `${consoleDir()}${name}`;
  if (!existsSync(path)) return null;
  const bytes = readFileSync(path);
  // index.html is reread while developing (a rebuild changes it); hashed files never change.
  if (name !== 'index.html') cache.set(name, bytes);
  return bytes;
}

function page(): JsonReply {
  const html = readAsset('index.html');
  if (!html) throw new AppError('NOT_FOUND', 'The console is not built: run `npm run build`.');
  return { status: 200, headers: { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' }, body: html };
}

function asset(request: HttpRequest): JsonReply {
  const file = request.params.file;
  const bytes = HASHED_FILE.test(file) ? readAsset(`assets/${file}`) : null;
  if (!bytes) throw notFound();
  const type = TYPES[file.slice(file.lastIndexOf('.') + 1)];
  return { status: 200, headers: { ...SECURITY_HEADERS, 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable' }, body: bytes };
}

const html = { 200: { description: 'the console page (the client routes by path)', contentType: 'text/html' }, 404: { description: 'NOT_FOUND: the console is not built' } };
const pageRoute = (path: string, operationId: string, summary: string): Route<Services> => ({
  method: 'GET',
  path,
  doc: { summary, operationId, tags: ['console'], responses: html },
  handler: page,
});

export const consoleAssetRoutes: Route<Services>[] = [
  {
    method: 'GET',
    path: '/',
    doc: { summary: 'Redirects to the web console.', operationId: 'consoleRoot', tags: ['console'], responses: { 302: { description: 'to /console', headers: ['Location'] } } },
    handler: () => ({ status: 302, headers: { location: '/console', 'cache-control': 'no-cache' }, body: '' }),
  },
  pageRoute('/console', 'consolePage', 'The web console (sign-in, sessions).'),
  pageRoute('/console/:page', 'consoleSubPage', 'A web console page (activate, sessions, organizations).'),
  pageRoute('/console/sessions/:sessionId', 'consoleSessionPage', "The web console's live session page."),
  // Every deeper console page (a trigger's runs, an agent's setup, a knowledge article…) is the same document.
  pageRoute('/console/:page/:id', 'consoleItemPage', 'A web console page for one item (a trigger, an agent, a module).'),
  pageRoute('/console/:page/:id/:view', 'consoleItemViewPage', "A web console page for one view of an item (a trigger's runs)."),
  {
    method: 'GET',
    path: '/console/assets/:file',
    doc: {
      summary: "The web console's content-hashed scripts and styles (cached as immutable).",
      operationId: 'consoleAsset',
      tags: ['console'],
      responses: { 200: { description: 'the file', contentType: ['text/javascript', 'text/css'] }, 404: { description: 'NOT_FOUND' } },
    },
    handler: asset,
  },
];
