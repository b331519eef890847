// Headless Debian Chromium for the console tests (playwright-core drives it; no browser is ever downloaded).
import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** CHROMIUM_PATH, else Debian's /usr/bin/chromium; null when neither exists (the tests then skip, saying so). */
export function chromiumPath(): string | null {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium'].filter((p): p is string => !!p);
  return candidates.find((p) => existsSync(p)) ?? null;
}

export const SKIP_REASON = 'Chromium not found (set CHROMIUM_PATH, or: apt-get update && apt-get install -y chromium)';

export async function launch(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/** Screenshots are test artifacts in test-artifacts/console (gitignored), one per page and width. */
const ARTIFACTS = new URL('../../../test-artifacts/console/', import.meta.url);

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}-${page.viewportSize()?.width}.png`, ARTIFACTS).pathname, fullPage: true });
}

/** Usable at narrow widths: nothing makes the page scroll sideways. */
export async function fitsViewport(page: Page): Promise<boolean> {
  // A string: it runs in the page, and this tree type-checks without the DOM lib.
  return page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');
}

/**
 * Polls a page expression from here until it is true. Not page.waitForFunction: its in-page polling evaluates
 * strings, which the console's CSP (no 'unsafe-eval') rightly refuses.
 */
export async function waitUntil(page: Page, expression: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate<boolean>(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until the page's Messages list holds `count` settled (not streaming) items, or `atLeast` that many. */
export async function settledMessages(page: Page, count: number, atLeast = false): Promise<void> {
  const items = `document.querySelectorAll('ol[aria-label="Messages"] > li:not([aria-busy])').length`;
  await waitUntil(page, `${items} ${atLeast ? '>=' : '==='} ${count}`);
}

/** Collects what the page reports as errors (a CSP violation, an uncaught exception) for a test to assert none. */
export function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    // A refused sign-in answers 401: the browser logs the failed request, which is not a page error.
    if (message.type() === 'error' && !/status of 40[14]/.test(message.text())) errors.push(message.text());
  });
  return errors;
}
