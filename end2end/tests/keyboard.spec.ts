import { test, expect, Page } from '@playwright/test';
import { ADMIN, DEVELOPER, hydrated, login, trackErrors } from './helpers';

// An admin and a developer walk their main flows with the keyboard alone (the reviewer's is in
// review.spec.ts: "one inbox … by keyboard"): every step is reached with Tab, chosen with the
// arrow keys or Space and done with Enter, and focus lands where the next step is.

/** What the focused element is called: its label, its aria-label or its text. */
async function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el) return '';
    const labelled = (el as HTMLInputElement).labels?.[0]?.innerText;
    return (el.getAttribute('aria-label') || labelled || el.innerText || '').trim();
  });
}

/** Presses Tab until the focused element is called `name` (at most 100 times). */
async function tabTo(page: Page, name: string | RegExp) {
  for (let i = 0; i < 100; i++) {
    await page.keyboard.press('Tab');
    const now = await focusedName(page);
    if (typeof name === 'string' ? now === name : name.test(now)) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

test('an admin creates a client and grants it a resource by keyboard alone', async ({ page }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  // A resource to grant, registered by keyboard too.
  await page.goto('/resources');
  await hydrated(page);
  await tabTo(page, 'New resource');
  await page.keyboard.press('Enter');
  await expect(page.getByLabel('Id')).toBeFocused();
  await page.keyboard.type(`kbd-${suffix}`);
  await page.keyboard.press('Tab');
  await page.keyboard.type('Keyboard ledger');
  await page.keyboard.press('Tab');
  await page.keyboard.type(`https://kbd-${suffix}.example.com/mcp`);
  await page.keyboard.press('Tab');
  await page.keyboard.type('ledger:read ledger:write');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/resources/kbd-${suffix}$`));

  // The client: New client, its fields, Enter; the secret panel takes focus.
  await page.goto('/clients');
  await hydrated(page);
  await tabTo(page, 'New client');
  await page.keyboard.press('Enter');
  await expect(page.getByLabel('client_id')).toBeFocused();
  await page.keyboard.type(`kbd-job-${suffix}`);
  await tabTo(page, 'Name');
  await page.keyboard.type('Keyboard export job');
  await tabTo(page, 'Registered scopes');
  await page.keyboard.type('ledger:read');
  await page.keyboard.press('Enter');
  const panel = page.getByTestId('issued-secret');
  await expect(panel).toContainText(`kbd-job-${suffix}`);
  await expect(panel).toBeFocused();

  // Its page: Add access opens a dialog; the resource is chosen with the arrow keys, its scopes
  // are one Tab stop (arrows move, Space ticks) and Enter grants.
  await page.goto(`/clients/kbd-job-${suffix}`);
  await hydrated(page);
  await tabTo(page, 'Add access');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toBeVisible();
  const resource = dialog.getByLabel('Resource', { exact: true });
  if (!(await resource.evaluate((el) => el === document.activeElement))) await tabTo(page, 'Resource');
  const option = dialog.locator('option', { hasText: 'Keyboard ledger' });
  const wanted = (await option.getAttribute('value'))!;
  for (let i = 0; i < 50 && (await resource.inputValue()) !== wanted; i++) await page.keyboard.press('ArrowDown');
  await expect(resource).toHaveValue(wanted);
  await page.keyboard.press('Tab');
  const boxes = dialog.getByRole('checkbox');
  await expect(boxes.first()).toBeFocused();
  await page.keyboard.press('Space');
  await expect(boxes.first()).toBeChecked();
  await page.keyboard.press('ArrowDown');
  await expect(boxes.nth(1)).toBeFocused();
  await page.keyboard.press('Space');
  await expect(boxes.nth(1)).toBeChecked();
  // One Tab leaves the scopes for what follows them.
  await tabTo(page, 'Grant access');
  await page.keyboard.press('Enter');
  const row = page.getByTestId('access-row').filter({ hasText: 'Keyboard ledger' });
  await expect(row).toContainText('ledger:read');
  await expect(row).toContainText('ledger:write');
  expect(errors).toEqual([]);
});

test('a developer generates the protection of their MCP server and submits it by keyboard alone', async ({ page }) => {
  const errors = trackErrors(page);
  await login(page, DEVELOPER);
  const suffix = Date.now().toString(36);
  // From the navigation: the first Tab stop skips it; here the developer goes through it.
  await tabTo(page, 'Protect your MCP server');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Protect your MCP server', level: 1 })).toBeVisible();
  await hydrated(page);
  await tabTo(page, 'MCP server URL');
  await page.keyboard.type(`https://kbd-${suffix}.example.com/mcp`);
  await tabTo(page, 'Name (optional)');
  await page.keyboard.type(`Keyboard ${suffix}`);
  await tabTo(page, 'Scopes');
  await page.keyboard.type('tools:call');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('canonical-resource')).toHaveText(`https://kbd-${suffix}.example.com/mcp`);
  await tabTo(page, 'Submit for an admin to enable');
  await page.keyboard.press('Enter');
  const registered = page.getByTestId('registered');
  await expect(registered).toContainText('waiting for an admin');
  // The submission opens from the notice, by keyboard.
  await tabTo(page, `Keyboard ${suffix}`);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: `Keyboard ${suffix}`, level: 1 })).toBeVisible();
  expect(errors).toEqual([]);
});
