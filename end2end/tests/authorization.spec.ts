import { test, expect } from '@playwright/test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { ADMIN, DEVELOPER, createClient, grantAccess, hydrated, login, registerResource, trackErrors } from './helpers';

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
  await page.getByLabel('Id').fill(`Pay ${suffix}`);
  await page.getByLabel('Name').fill('Payments');
  await page.getByLabel('Resource URI').fill(`http://pay-${suffix}.example.com/mcp`);
  await page.getByLabel('Accepted scopes').fill('tools:call tools:read');
  await page.getByRole('button', { name: 'Register resource' }).click();
  // Every error sits on its field, which describes it and is marked invalid; the first gets
  // focus.
  const id = page.getByLabel('Id');
  const uri = page.getByLabel('Resource URI');
  await expect(id).toHaveAttribute('aria-invalid', 'true');
  await expect(id).toBeFocused();
  await expect(uri).toHaveAttribute('aria-invalid', 'true');
  await expect(uri).toHaveAccessibleDescription(/https/);
  await id.fill(`pay-${suffix}`);
  await uri.fill(`HTTPS://PAY-${suffix}.example.com/mcp/`);
  // Editing clears the stale error.
  await expect(uri).not.toHaveAttribute('aria-invalid', 'true');
  await page.getByRole('button', { name: 'Register resource' }).click();
  // A new resource opens on its own page, where granting clients comes next.
  await expect(page).toHaveURL(new RegExp(`/resources/pay-${suffix}$`));
  await expect(page.getByTestId('resource-detail')).toContainText(audience);
  await expect(page.getByTestId('toast').filter({ hasText: 'Next: grant the clients' })).toBeVisible();

  // The list finds it by its audience, and sorts by audience on request.
  await nav.getByRole('link', { name: 'Resources' }).click();
  await hydrated(page);
  await page.getByLabel('Search').fill(`pay-${suffix}.example`);
  await page.getByLabel('Sort by').selectOption('audience');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/sort=audience/);
  await expect(page.getByTestId('resource-row')).toHaveCount(1);
  await expect(page.getByTestId('resource-row')).toContainText(audience);
  await page.getByLabel('Search').fill(`no-such-${suffix}`);
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByText('No resource matches')).toBeVisible();

  // Create a client; its secret is shown once.
  await nav.getByRole('link', { name: 'Clients' }).click();
  await hydrated(page);
  await page.getByRole('button', { name: 'New client' }).click();
  await page.getByLabel('Name').fill('Reports bot');
  await page.getByLabel('client_id').fill(`bot-${suffix}`);
  await page.getByLabel('Registered scopes').fill('tools:call');
  await page.getByRole('button', { name: 'Create client' }).click();
  const panel = page.getByTestId('issued-secret');
  await expect(panel).toContainText(`bot-${suffix}`);
  const secret = (await panel.locator('code').last().textContent())!.trim();
  expect(secret).toMatch(/^[0-9a-f]{64}$/);

  // Its detail page (the next step: giving it access) shows one live secret, never the secret
  // itself.
  await page.getByTestId('issued-secret').getByRole('link', { name: /Secret stored\? Next: give it access/ }).click();
  await expect(page.getByTestId('client-detail')).toContainText('client_secret_basic');
  await expect(page.getByTestId('secret-row')).toHaveCount(1);
  await expect(page.getByTestId('secret-row')).toContainText('Live');
  await expect(page.locator('body')).not.toContainText(secret);

  // A new client reaches nothing until it is granted a resource.
  const ask = () => request.post('/realms/default/token', {
    headers: { authorization: 'Basic ' + Buffer.from(`bot-${suffix}:${secret}`).toString('base64') },
    form: { grant_type: 'client_credentials', resource: audience },
  });
  const refused = await ask();
  expect(refused.status()).toBe(400);
  expect((await refused.json()).error).toBe('invalid_target');

  // Grant it Payments with one of its two scopes, from the client's page, by keyboard.
  await hydrated(page);
  const section = page.getByTestId('client-access');
  await expect(section).toContainText('No access yet');
  await section.getByRole('button', { name: 'Add access' }).click();
  const dialog = page.getByRole('alertdialog');
  const resource = dialog.getByLabel('Resource', { exact: true });
  await expect(resource).toBeFocused();
  await resource.selectOption((await dialog.locator('option', { hasText: audience }).getAttribute('value'))!);
  const scopes = dialog.getByRole('group', { name: 'Scopes for Payments' });
  // Nothing is ticked at first: least privilege.
  await expect(scopes.getByLabel('tools:read')).not.toBeChecked();
  await expect(dialog.getByRole('button', { name: 'Grant access' })).toBeDisabled();
  // The scopes are one Tab stop: arrows move between them, Space ticks, Tab leaves.
  await page.keyboard.press('Tab');
  await expect(scopes.getByLabel('tools:call')).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(scopes.getByLabel('tools:read')).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Space');
  await expect(scopes.getByLabel('tools:call')).toBeChecked();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await dialog.getByRole('button', { name: 'Grant access' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: `bot-${suffix} may get tokens for Payments with tools:call` })).toBeVisible();
  const access = page.getByTestId('access-row').filter({ hasText: audience });
  await expect(access.getByRole('list', { name: 'Scopes' })).toHaveText('tools:call');
  // Focus lands on the Access heading, not the top of the page.
  await expect(page.locator('#client-access-title')).toBeFocused();

  // The resource's page answers who may reach it, with which scopes.
  await access.getByRole('link', { name: 'Payments' }).click();
  await expect(page.getByTestId('resource-detail')).toContainText(audience);
  const grantRow = page.getByTestId('grant-row').filter({ hasText: `bot-${suffix}` });
  await expect(grantRow).toContainText('tools:call');
  await expect(grantRow).not.toContainText('tools:read');

  // The client gets a token for that resource, with the granted scope only.
  const res = await ask();
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
  await page.getByRole('button', { name: 'New agent' }).first().click();
  await page.getByLabel('Name').fill(`agent-${suffix}`);
  await page.getByLabel('Owner').fill('owner@example.com');
  await page.getByLabel('Roles').fill('tools:call mcp:tools');
  await page.getByRole('button', { name: 'Create agent' }).click();
  // Created, it opens on its own page; clients are bound with a searchable picker.
  await expect(page).toHaveURL(new RegExp(`/agents/agent-${suffix}$`));
  await hydrated(page);
  await expect(page.getByTestId('agent-detail')).toContainText('mcp:tools');
  const picker = page.getByRole('combobox', { name: 'Bind a client' });
  await picker.fill('no-such-client');
  await expect(page.getByRole('listbox')).toContainText('No client matches.');
  await picker.fill(`bot-${suffix}`);
  await page.getByRole('listbox').getByRole('option', { name: new RegExp(`bot-${suffix}`) }).click();
  // Binding asks first, saying what the tokens will be limited to.
  await expect(page.getByRole('alertdialog')).toContainText('limited to');
  await page.getByRole('alertdialog').getByRole('button', { name: 'Bind client' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Binding saved.' })).toBeVisible();
  await expect(page.getByTestId('bound-client').getByRole('link')).toHaveText(`bot-${suffix}`);
  const agentToken = await (await request.post('/realms/default/token', {
    headers: { authorization: 'Basic ' + Buffer.from(`bot-${suffix}:${secret}`).toString('base64') },
    form: { grant_type: 'client_credentials', resource: audience },
  })).json();
  const agentClaims = (await jwtVerify(agentToken.access_token, jwks, { audience, issuer, typ: 'at+jwt' })).payload;
  expect(agentClaims.nhi).toBe(true);
  expect(agentClaims.agent_name).toBe(`agent-${suffix}`);
  expect(agentClaims.agent_owner).toBe('owner@example.com');

  // Searching agents narrows the list (by name or owner) and keeps the query in the URL.
  await nav.getByRole('link', { name: 'Agents' }).click();
  await hydrated(page);
  const row = page.getByTestId('agent-row').filter({ hasText: `agent-${suffix}` });
  await expect(row).toContainText('MCP');
  await expect(row).toContainText('1 client');
  await page.getByLabel('Search agents').fill(`agent-${suffix}`);
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(new RegExp(`q=agent-${suffix}`));
  await expect(page.getByTestId('agent-row')).toHaveCount(1);
  await page.getByLabel('Search agents').fill('no-such-agent-anywhere');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByText('No agent matches')).toBeVisible();

  // Rotation from the Keys screen: the old token still verifies against the new JWKS.
  await nav.getByRole('link', { name: 'Signing keys' }).click();
  await hydrated(page);
  // The list is loaded (the active key, at least) before it is counted.
  await expect(page.getByTestId('key-row').first()).toBeVisible();
  const before = await page.getByTestId('key-row').count();
  await page.getByRole('button', { name: 'Rotate keys' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Rotate' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Rotated' })).toBeVisible();
  await expect(page.getByTestId('key-row')).toHaveCount(before + 1);
  const rotated = createLocalJWKSet(await (await request.get('/realms/default/jwks')).json());
  await jwtVerify(body.access_token, rotated, { audience, issuer, typ: 'at+jwt' });
  expect(errors).toEqual([]);
});

test('developers see resources read-only, and pages they may not see answer "not allowed" in the layout', async ({ page }) => {
  await login(page, DEVELOPER);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Clients' })).toHaveCount(0);
  await expect(nav.getByRole('link', { name: 'Signing keys' })).toHaveCount(0);
  await expect(nav.getByRole('link', { name: 'Console users' })).toHaveCount(0);
  await nav.getByRole('link', { name: 'Resources' }).click();
  await hydrated(page);
  await expect(page.getByRole('heading', { name: 'Resources', level: 1 })).toBeVisible();
  await expect(page.getByRole('button', { name: 'New resource' })).toHaveCount(0);
  for (const path of ['/clients', '/keys', '/users', '/agents']) {
    const res = await page.goto(path);
    expect(res!.status(), path).toBe(403);
    await expect(page.getByTestId('not-allowed')).toBeVisible();
    // Inside the layout: the navigation is still there.
    await expect(nav.getByRole('link', { name: 'Overview' })).toBeVisible();
  }
  const missing = await page.goto('/no-such-page');
  expect(missing!.status()).toBe(404);
  await expect(page.getByTestId('not-found')).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Overview' })).toBeVisible();
});

test('an admin picks the audience for token requests without resource, then requires it again', async ({ page, request }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const nav = page.getByRole('navigation', { name: 'Main' });
  const suffix = Date.now().toString(36);
  const audience = `https://docs-${suffix}.example.com/mcp`;
  await registerResource(page, { id: `docs-${suffix}`, name: `Docs ${suffix}`, uri: audience, scopes: 'tools:read' });
  await page.goto('/resources');
  await hydrated(page);

  const select = page.getByLabel('When resource is omitted');
  await expect(select).toHaveValue('');
  await select.selectOption(`docs-${suffix}`);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('toast').filter({ hasText: `now get docs-${suffix}` })).toBeVisible();
  await page.reload();
  await expect(page.getByLabel('When resource is omitted')).toHaveValue(`docs-${suffix}`);

  // A client asking without resource now gets a token for that resource.
  const secret = await createClient(page, { clientId: `docs-bot-${suffix}`, name: 'Docs bot', scope: 'tools:read' });
  await grantAccess(page, `docs-bot-${suffix}`, `Docs ${suffix}`);
  const ask = () => request.post('/realms/default/token', {
    headers: { authorization: 'Basic ' + Buffer.from(`docs-bot-${suffix}:${secret}`).toString('base64') },
    form: { grant_type: 'client_credentials' },
  });
  const ok = await ask();
  expect(ok.status()).toBe(200);
  const claims = JSON.parse(Buffer.from((await ok.json()).access_token.split('.')[1], 'base64url').toString());
  expect(claims.aud).toBe(audience);

  // Back to refusing: invalid_target again.
  await nav.getByRole('link', { name: 'Resources' }).click();
  await hydrated(page);
  await page.getByLabel('When resource is omitted').selectOption('');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'are refused' })).toBeVisible();
  const refused = await ask();
  expect(refused.status()).toBe(400);
  expect((await refused.json()).error).toBe('invalid_target');
  expect(errors).toEqual([]);
});

test('a private_key_jwt client registered with a JWKS URL shows where its keys come from', async ({ page }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
  await hydrated(page);
  await page.getByRole('button', { name: 'New client' }).click();
  await page.getByLabel('Name').fill(`Signer ${suffix}`);
  await page.getByLabel('client_id').fill(`signer-${suffix}`);
  await page.getByLabel('Authentication').selectOption('private_key_jwt');
  await page.getByLabel('Registered scopes').fill('tools:call');
  await page.getByLabel('…or a JWKS URL').fill('https://10.0.0.8/jwks.json');
  await page.getByRole('button', { name: 'Create client' }).click();
  await expect(page.getByLabel('…or a JWKS URL')).toHaveAccessibleDescription(/public address/);
  await expect(page.getByLabel('…or a JWKS URL')).toBeFocused();
  await page.getByLabel('…or a JWKS URL').fill(`https://agent-${suffix}.example.com/jwks.json`);
  await page.getByText('More registration metadata').click();
  await page.getByLabel('Software version').fill('2.1.0');
  await page.getByLabel('Redirect URIs').fill('http://app.example.com/cb');
  await page.getByRole('button', { name: 'Create client' }).click();
  await expect(page.getByLabel('Redirect URIs')).toHaveAccessibleDescription(/loopback/);
  await page.getByLabel('Redirect URIs').fill('https://app.example.com/cb');
  await page.getByRole('button', { name: 'Create client' }).click();
  await page.getByRole('link', { name: `Signer ${suffix}` }).click();
  await expect(page.getByTestId('client-jwks-uri')).toHaveText(`https://agent-${suffix}.example.com/jwks.json`);
  await expect(page.getByTestId('client-detail')).toContainText('2.1.0');
  await expect(page.getByTestId('client-detail')).toContainText('https://app.example.com/cb');
  // Its keys are fetched at the first token request, or on demand; this machine has no route to
  // the host, so the failure is shown where the admin looks for it.
  const keys = page.getByTestId('remote-keys');
  await expect(keys).toContainText('Not fetched yet');
  await keys.getByRole('button', { name: 'Fetch keys now' }).click();
  await expect(keys.getByRole('alert')).toContainText('Last fetch failed', { timeout: 15_000 });
  expect(errors).toEqual([]);
});
