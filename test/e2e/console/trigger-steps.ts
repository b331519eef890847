// Steps the trigger and API key browser tests share: Ada's sign-in to the triggers list, screenshots at both widths.
import type { Page } from 'playwright-core';
import { fitsViewport, screenshot } from './browser.js';

/** Signs in as Ada (owner of Sales and Support) through the sign-in page and opens the triggers list from the nav. */
export async function signInToTriggers(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/console`);
  await page.getByLabel('Email').fill('ada@acme.test');
  await page.getByLabel('Password').fill('ada-password-1');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sessions' }).waitFor();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Triggers' }).click();
  await page.getByRole('heading', { name: 'Triggers' }).waitFor();
}

/** Screenshots at 360 px and 1440 px, with no sideways scrolling at either. */
export async function bothWidths(t: { ok(value: unknown, message: string): unknown }, page: Page, name: string): Promise<void> {
  for (const width of [360, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    await screenshot(page, name);
    t.ok(await fitsViewport(page), `${name} at ${width} px: no sideways scrolling`);
  }
}
