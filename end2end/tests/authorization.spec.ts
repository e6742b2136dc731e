import { test, expect } from '@playwright/test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { ADMIN, DEVELOPER, hydrated, login, trackErrors } from './helpers';

test('an admin registers a resource and a client, and the token only works for that resource', async ({ page, request, baseURL }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const nav = page.getByRole('navigation', { name: 'Main' });
  const suffix = Date.now().toString(36);
  const audience = `https://pay-${suffix}.example.com/mcp`;

  // Register the MCP server; bad input is shown inline first.
  await nav.getByRole('link', { name: 'Resources' }).click();
  await hydrated(page);
  await page.getByRole('button', { name: 'New resource' }).click();
  await page.getByLabel('Id').fill(`pay-${suffix}`);
  await page.getByLabel('Name').fill('Payments');
  await page.getByLabel('Resource URI').fill(`http://pay-${suffix}.example.com/mcp`);
  await page.getByLabel('Accepted scopes').fill('tools:call tools:read');
  await page.getByRole('button', { name: 'Register resource' }).click();
  await expect(page.getByRole('alert')).toContainText('https');
  await page.getByLabel('Resource URI').fill(`HTTPS://PAY-${suffix}.example.com/mcp/`);
  await page.getByRole('button', { name: 'Register resource' }).click();
  await expect(page.getByTestId('resource-row').filter({ hasText: audience })).toBeVisible();

  // Create a client; its secret is shown once.
  await nav.getByRole('link', { name: 'Clients' }).click();
  await hydrated(page);
  await page.getByRole('button', { name: 'New client' }).click();
  await page.getByLabel('Name').fill('Reports bot');
  await page.getByLabel('client_id').fill(`bot-${suffix}`);
  await page.getByLabel('Allowed scopes').fill('tools:call');
  await page.getByRole('button', { name: 'Create client' }).click();
  const panel = page.getByTestId('issued-secret');
  await expect(panel).toContainText(`bot-${suffix}`);
  const secret = (await panel.locator('code').last().textContent())!.trim();
  expect(secret).toMatch(/^[0-9a-f]{64}$/);

  // Its detail page shows one live secret, never the secret itself.
  await page.getByTestId('issued-secret').getByRole('button', { name: 'Done' }).click();
  await page.getByRole('link', { name: 'Reports bot' }).click();
  await expect(page.getByTestId('client-detail')).toContainText('client_secret_basic');
  await expect(page.getByTestId('secret-row')).toHaveCount(1);
  await expect(page.getByTestId('secret-row')).toContainText('Live');
  await expect(page.locator('body')).not.toContainText(secret);

  // The client gets a token for that resource.
  const res = await request.post('/realms/default/token', {
    headers: { authorization: 'Basic ' + Buffer.from(`bot-${suffix}:${secret}`).toString('base64') },
    form: { grant_type: 'client_credentials', resource: audience, scope: 'tools:call' },
  });
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(body.scope).toBe('tools:call');

  // Verified with jose, like an MCP server would: right audience passes, another fails.
  const jwks = createLocalJWKSet(await (await request.get('/realms/default/jwks')).json());
  const issuer = `${baseURL}/realms/default`;
  const { payload, protectedHeader } = await jwtVerify(body.access_token, jwks, { audience, issuer, typ: 'at+jwt' });
  expect(protectedHeader.alg).toBe('ES256');
  expect(payload.client_id).toBe(`bot-${suffix}`);
  await expect(jwtVerify(body.access_token, jwks, { audience: 'https://mail.example.com/mcp', issuer })).rejects.toThrow();

  // Bind the client to an agent: its tokens now carry the agent's identity.
  await nav.getByRole('link', { name: 'Agents' }).click();
  await hydrated(page);
  await page.getByRole('button', { name: 'New agent' }).click();
  await page.getByLabel('Name').fill(`agent-${suffix}`);
  await page.getByLabel('Owner').fill('owner@example.com');
  await page.getByLabel('Roles').fill('tools:call mcp:tools');
  await page.getByRole('button', { name: 'Create agent' }).click();
  const row = page.getByTestId('agent-row').filter({ hasText: `agent-${suffix}` });
  await expect(row).toContainText('MCP');
  await row.getByLabel(`Bind a client to agent-${suffix}`).fill(`bot-${suffix}`);
  await row.getByRole('button', { name: 'Bind' }).click();
  await expect(row).toContainText(`bot-${suffix}`);
  const agentToken = await (await request.post('/realms/default/token', {
    headers: { authorization: 'Basic ' + Buffer.from(`bot-${suffix}:${secret}`).toString('base64') },
    form: { grant_type: 'client_credentials', resource: audience },
  })).json();
  const agentClaims = (await jwtVerify(agentToken.access_token, jwks, { audience, issuer, typ: 'at+jwt' })).payload;
  expect(agentClaims.nhi).toBe(true);
  expect(agentClaims.agent_name).toBe(`agent-${suffix}`);
  expect(agentClaims.agent_owner).toBe('owner@example.com');

  // Rotation from the Keys screen: the old token still verifies against the new JWKS.
  await nav.getByRole('link', { name: 'Signing keys' }).click();
  await hydrated(page);
  const before = await page.getByTestId('key-row').count();
  await page.getByRole('button', { name: 'Rotate keys' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Rotate' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Rotated' })).toBeVisible();
  await expect(page.getByTestId('key-row')).toHaveCount(before + 1);
  const rotated = createLocalJWKSet(await (await request.get('/realms/default/jwks')).json());
  await jwtVerify(body.access_token, rotated, { audience, issuer, typ: 'at+jwt' });
  expect(errors).toEqual([]);
});

test('developers see neither clients nor keys', async ({ page }) => {
  await login(page, DEVELOPER);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Clients' })).toHaveCount(0);
  await expect(nav.getByRole('link', { name: 'Signing keys' })).toHaveCount(0);
  await page.goto('/clients');
  await expect(page.getByRole('alert')).toHaveText('Your role does not allow this.');
});
