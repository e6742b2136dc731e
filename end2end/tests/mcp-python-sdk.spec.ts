import { test, expect } from '@playwright/test';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ADMIN, VENV, ensurePythonVenv, hydrated, login, registerResource, trackErrors } from './helpers';
import { startMcpServer } from '../mcp/server';

test.beforeAll(() => {
  test.setTimeout(300_000);
  ensurePythonVenv();
});

test('the official Python SDK client registers, waits for review, signs a person in and calls a tool', async ({ page, browser, baseURL }) => {
  test.setTimeout(90_000);
  const issuer = `${baseURL}/realms/default`;
  const suffix = Date.now().toString(36);
  const mcp = await startMcpServer(issuer, ['tools:call']);
  const host = spawn(`${VENV}/bin/python`, ['mcp/py_client.py', mcp.url], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = createInterface({ input: host.stdout });
  const queue: Record<string, string>[] = [];
  const waiting: ((m: Record<string, string>) => void)[] = [];
  lines.on('line', (l) => {
    const m = JSON.parse(l);
    const w = waiting.shift();
    if (w) w(m); else queue.push(m);
  });
  let stderr = '';
  host.stderr.on('data', (d) => { stderr += d; });
  const next = () => new Promise<Record<string, string>>((resolve, reject) => {
    const m = queue.shift();
    if (m) return resolve(m);
    waiting.push(resolve);
    host.once('exit', () => reject(new Error(`the Python host exited: ${stderr}`)));
  });
  try {
    const errors = trackErrors(page);
    await login(page, ADMIN);
    await registerResource(page, { id: `py-${suffix}`, name: 'Python SDK test server', uri: mcp.url, scopes: 'tools:call' });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'People' }).click();
    await hydrated(page);
    await page.getByRole('button', { name: 'New person' }).click();
    const email = `alan-${suffix}@example.com`;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password (optional)').fill('alan-password-123');
    await page.getByLabel('Repeat password').fill('alan-password-123');
    await page.getByRole('button', { name: 'Add person' }).click();
    // A new person opens on their page.
    await expect(page).toHaveURL(/\/people\/psn_/);
    await expect(page.getByRole('main')).toContainText(email);

    // The host registered itself and wants a person to sign in: pending, so it is refused.
    const step = await next();
    expect(step.authorize, JSON.stringify(step)).toContain(`${issuer}/authorize`);
    const authorize = new URL(step.authorize);
    expect(authorize.searchParams.get('resource')).toBe(mcp.url);
    const clientId = authorize.searchParams.get('client_id')!;
    const person = await browser.newPage();
    await person.goto(step.authorize);
    await expect(person.getByTestId('authorize-error')).toContainText('awaiting approval by the security team');

    await page.goto('/review');
    await hydrated(page);
    const card = page.getByTestId('review-item').filter({ hasText: clientId });
    await expect(card).toContainText('MCP Python SDK test client');
    await card.getByRole('button', { name: 'Approve' }).click();
    await page.getByLabel('Reason (required)').fill('Python SDK interop test');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Approve' }).click();
    await expect(card).toHaveCount(0);

    await person.goto(step.authorize);
    await person.getByLabel('Email').fill(email);
    await person.getByLabel('Password').fill('alan-password-123');
    await person.getByRole('button', { name: 'Sign in' }).click();
    await expect(person.getByTestId('client-name')).toHaveText('MCP Python SDK test client');
    await person.getByRole('button', { name: 'Allow' }).click();
    await expect(person.locator('body')).toContainText('back in the app');

    const done = await next();
    expect(done.error, stderr).toBeUndefined();
    const who = JSON.parse(done.result);
    expect(who.sub).toMatch(/^psn_/);
    expect(who.client_id).toBe(clientId);
    expect(who.scopes).toEqual(['tools:call']);
    expect(errors).toEqual([]);
  } finally {
    host.kill();
    await mcp.close();
  }
});
