import { expect, Page } from '@playwright/test';

export const ADMIN = { email: 'admin@example.com', password: 'admin-password-123' };
export const DEVELOPER = { email: 'dev@example.com', password: 'developer-password-123' };

/** Collects uncaught page errors; assert it stays empty. */
export function trackErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  return errors;
}

export async function login(page: Page, who: { email: string; password: string }) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
}

/** Waits until the page has hydrated (the app marks <body> from a browser-only effect). */
export async function hydrated(page: Page) {
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true', { timeout: 15_000 });
}
