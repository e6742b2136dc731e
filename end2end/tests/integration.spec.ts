import { test, expect } from '@playwright/test';
import { DEVELOPER, hydrated, login, trackErrors } from './helpers';

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
