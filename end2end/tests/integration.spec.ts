import { test, expect } from '@playwright/test';
import { ADMIN, DEVELOPER, hydrated, login, trackErrors } from './helpers';

test('a developer generates what protects their MCP server, copies it, and is told about bad input on the field', async ({ page, context, baseURL }) => {
  const errors = trackErrors(page);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  await login(page, DEVELOPER);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Protect your MCP server' }).click();
  await expect(page.getByRole('heading', { name: 'Protect your MCP server', level: 1 })).toBeVisible();
  await hydrated(page);

  // An invalid URL is explained on its field, and nothing is generated.
  const url = page.getByLabel('MCP server URL');
  await url.fill('ftp://mcp.example.com/mcp');
  await page.getByRole('button', { name: 'Generate' }).click();
  await expect(url).toHaveAttribute('aria-invalid', 'true');
  await expect(url).toHaveAccessibleDescription(/must use https/);
  await expect(page.getByTestId('protection')).toHaveCount(0);

  // A URL written loosely is shown in canonical form, with each change explained.
  await url.fill('HTTPS://MCP.Example.com:443/mcp/');
  await page.getByLabel('Scopes (optional)').fill('tools:call offline_access');
  await page.getByLabel('Name (optional)').fill('Payments MCP');
  await page.getByRole('button', { name: 'Generate' }).click();
  await expect(page.getByTestId('canonical-resource')).toHaveText('https://mcp.example.com/mcp');
  await expect(page.getByTestId('canonical-changes')).toContainText('trailing slash is dropped');
  await expect(page.getByTestId('scope-notes')).toContainText('offline_access is left out');
  const issuer = `${baseURL}/realms/default`;
  const metadata = page.getByTestId('artifact-metadata');
  await expect(metadata).toContainText('"resource": "https://mcp.example.com/mcp"');
  await expect(metadata).toContainText(issuer);
  await expect(page.getByTestId('artifact-challenge')).toContainText(
    'WWW-Authenticate: Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="tools:call"',
  );
  for (const id of ['metadata-urls', 'step-up', 'register', 'token', 'call', 'typescript', 'python', 'vscode', 'claude-code', 'inspector']) {
    await expect(page.getByTestId(`artifact-${id}`)).toBeVisible();
  }
  // Copy puts exactly the block's text on the clipboard.
  const block = page.getByTestId('artifact-claude-code');
  await block.getByRole('button', { name: /^Copy/ }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("claude mcp add --transport http payments-mcp 'https://mcp.example.com/mcp'");
  const challenge = page.getByTestId('artifact-challenge');
  await challenge.getByRole('button', { name: /^Copy/ }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await challenge.locator('pre').innerText());
  expect(errors).toEqual([]);
});

test('the MCP authorization screen counts MCP-capable agents, lists them by status and gives the endpoints', async ({ page, baseURL }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  const api = page.request;
  const call = async (fn: string, form: Record<string, string>) => {
    const res = await api.post(`/api/${fn}`, { form, headers: { origin: baseURL! } });
    expect(res.ok(), `${fn}: ${await res.text()}`).toBeTruthy();
  };
  const soon = new Date(Date.now() + 3 * 24 * 3600 * 1000).toISOString().slice(0, 16);
  await call('agents/create', { name: `mcp-soon-${suffix}`, owner: 'ops@example.com', description: '', roles: 'mcp:tools', expires_at: soon });
  await call('agents/create', { name: `mcp-later-${suffix}`, owner: 'ops@example.com', description: '', roles: 'mcp', expires_at: '' });
  await call('agents/create', { name: `plain-${suffix}`, owner: 'ops@example.com', description: '', roles: 'reports', expires_at: '' });
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'MCP authorization' }).click();
  await expect(page.getByRole('heading', { name: 'MCP authorization', level: 1 })).toBeVisible();
  await hydrated(page);
  await expect(page.getByTestId('mcp-figures')).toContainText('Expiring within 14 days');
  const rows = page.getByTestId('agent-row');
  await expect(rows.filter({ hasText: `mcp-soon-${suffix}` })).toBeVisible();
  await expect(rows.filter({ hasText: `plain-${suffix}` })).toHaveCount(0);
  // The expiring figure opens the agents it counts.
  await page.getByTestId('mcp-figure').filter({ hasText: 'Expiring within 14 days' }).click();
  await expect(page).toHaveURL(/show=expiring/);
  await expect(rows.filter({ hasText: `mcp-soon-${suffix}` })).toBeVisible();
  await expect(rows.filter({ hasText: `mcp-later-${suffix}` })).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Expiring', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('mcp-endpoints')).toContainText(`${baseURL}/realms/default/token`);
  expect(errors).toEqual([]);
});
