import { expect, Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

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

/** Creates a realm from the Realms screen (its form takes focus) and waits for its row. */
export async function createRealm(page: Page, name: string, display: string) {
  await page.goto('/realms');
  await hydrated(page);
  await page.getByRole('button', { name: 'New realm' }).click();
  await expect(page.getByLabel('Name', { exact: true })).toBeFocused();
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Display name').fill(display);
  await page.getByRole('button', { name: 'Create realm' }).click();
  await expect(page.getByTestId('realm-row').filter({ hasText: name })).toBeVisible();
  // The create flow ends on the new realm: its link has focus.
  await expect(page.locator(`#realm-${name}`)).toBeFocused();
}

/** Switches the console to realm `name` with the sidebar's realm picker (choose, then Switch). */
export async function switchRealm(page: Page, name: string) {
  await page.getByTestId('realm-switcher').selectOption(name);
  await page.getByRole('button', { name: 'Switch realm' }).click();
}

/** Registers a resource from the Resources screen and waits for its row. */
export async function registerResource(page: Page, r: { id: string; name: string; uri: string; scopes: string }) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Resources' }).click();
  await hydrated(page);
  await page.getByRole('button', { name: 'New resource' }).click();
  await page.getByLabel('Id').fill(r.id);
  await page.getByLabel('Name').fill(r.name);
  await page.getByLabel('Resource URI').fill(r.uri);
  await page.getByLabel('Accepted scopes').fill(r.scopes);
  await page.getByRole('button', { name: 'Register resource' }).click();
  // A new resource opens on its own page.
  await expect(page.getByTestId('resource-detail')).toContainText(r.uri);
}

/** Creates a client_secret_basic client from the Clients screen; returns its secret (shown once). */
export async function createClient(page: Page, c: { clientId: string; name: string; scope: string }): Promise<string> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
  await hydrated(page);
  await page.getByRole('button', { name: 'New client' }).click();
  await page.getByLabel('Name').fill(c.name);
  await page.getByLabel('client_id').fill(c.clientId);
  await page.getByLabel('Registered scopes').fill(c.scope);
  await page.getByRole('button', { name: 'Create client' }).click();
  const panel = page.getByTestId('issued-secret');
  await expect(panel).toContainText(c.clientId);
  return (await panel.locator('code').last().textContent())!.trim();
}

/** Grants a client every scope of a resource from the client's page ("Add access"). */
export async function grantAccess(page: Page, clientId: string, resourceName: string): Promise<void> {
  await page.goto(`/clients/${clientId}`);
  await hydrated(page);
  await page.getByTestId('client-access').getByRole('button', { name: 'Add access' }).click();
  const dialog = page.getByRole('alertdialog');
  const option = dialog.locator('option', { hasText: resourceName });
  await dialog.getByLabel('Resource', { exact: true }).selectOption((await option.getAttribute('value'))!);
  // Nothing is ticked at first (least privilege): pick every scope.
  for (const box of await dialog.getByRole('checkbox').all()) await box.check();
  await dialog.getByRole('button', { name: 'Grant access' }).click();
  await expect(page.getByTestId('access-row').filter({ hasText: resourceName })).toBeVisible();
}

/** The venv with the official Python SDK and what the generated Python server needs, pinned
 * (made once, from PyPI). */
export const VENV = '.venv';
const PYTHON_PACKAGES = ['mcp==2.3.0', 'PyJWT[crypto]==2.15.1', 'uvicorn==0.54.0'];

export function ensurePythonVenv() {
  const ready = existsSync(`${VENV}/bin/python`)
    && spawnSync(`${VENV}/bin/python`, ['-c', 'import mcp, jwt, uvicorn, cryptography']).status === 0;
  if (ready) return;
  for (const [cmd, args] of [
    ['python3', ['-m', 'venv', VENV]],
    [`${VENV}/bin/pip`, ['install', '--quiet', '--disable-pip-version-check', ...PYTHON_PACKAGES]],
  ] as const) {
    const r = spawnSync(cmd, args, { stdio: 'inherit', timeout: 280_000 });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed`);
  }
}

/** What is wrong with the page as shown: sideways scroll, serious axe violations; saves a screenshot. */
export async function check(page: Page, name: string): Promise<string[]> {
  const problems: string[] = [];
  const { scroll, client: visible, height } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
    height: document.documentElement.scrollHeight,
  }));
  if (scroll > visible) problems.push(`${name}: page scrolls sideways (${scroll} > ${visible})`);
  // Long lists page instead of growing without bound.
  if (height > 20_000) problems.push(`${name}: page is ${height} px tall (at most 20,000)`);
  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  for (const v of axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')) {
    problems.push(`${name}: ${v.id} (${v.impact}) ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  }
  await page.screenshot({ path: `screenshots/${name}.png`, fullPage: true });
  return problems;
}

/** Starts `runtime` (with `file`, if any) and waits until it says it listens. */
export async function startGenerated(runtime: string, file: string | null, port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(runtime, file ? [file] : [], { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${output}`)), 20_000);
    const seen = (d: Buffer) => {
      output += d.toString();
      if (output.includes('MCP server for')) { clearTimeout(timer); resolve(); }
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`the server exited (${code}): ${output}`)); });
  });
  // Said is not yet listening (uvicorn binds after the script's own line): wait for the port.
  for (let i = 0; ; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return child;
    } catch (e) {
      if (i > 100) throw new Error(`the server never listened: ${output} (${e})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
