import { test, expect, Page } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ADMIN, hydrated, login, registerResource, trackErrors } from './helpers';
import { startMcpServer } from '../mcp/server';

const CALLBACK = 'http://127.0.0.1:8976/callback';

/** What an MCP host keeps for one server: its registration, PKCE verifier and tokens (in memory). */
class MemoryProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  get redirectUrl() { return CALLBACK; }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP SDK test client',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'tools:call offline_access',
    };
  }
  clientInformation() { return this.info; }
  saveClientInformation(i: OAuthClientInformationMixed) { this.info = i; }
  tokens() { return this.saved; }
  saveTokens(t: OAuthTokens) { this.saved = t; }
  redirectToAuthorization(url: URL) { this.authorizationUrl = url; }
  saveCodeVerifier(v: string) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
}

/** The app's loopback callback listener (as a CLI or desktop MCP host runs one). */
async function callbackListener(): Promise<{ close(): Promise<void> }> {
  const http = await import('node:http');
  const server = http.createServer((_, res) => { res.end('back in the app'); });
  await new Promise<void>((resolve) => server.listen(8976, '127.0.0.1', () => resolve()));
  return { close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function visit(page: Page, url: URL): Promise<void> {
  await page.goto(url.toString());
}

test('the official TypeScript SDK client registers, waits for review, signs a person in and calls a tool', async ({ page, browser, baseURL }) => {
  const issuer = `${baseURL}/realms/default`;
  const suffix = Date.now().toString(36);
  const mcp = await startMcpServer(issuer, ['tools:call']);
  const callback = await callbackListener();
  try {
    // An admin registers the MCP server and adds the person who will use it.
    const errors = trackErrors(page);
    await login(page, ADMIN);
    await registerResource(page, { id: `sdk-${suffix}`, name: 'SDK test server', uri: mcp.url, scopes: 'tools:call' });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'People' }).click();
    await hydrated(page);
    await page.getByRole('button', { name: 'New person' }).click();
    const email = `grace-${suffix}@example.com`;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Name').fill('Grace Hopper');
    await page.getByLabel('Password (optional)').fill('grace-password-123');
    await page.getByLabel('Repeat password').fill('grace-password-123');
    await page.getByRole('button', { name: 'Add person' }).click();
    // A new person opens on their page.
    await expect(page).toHaveURL(/\/people\/psn_/);
    await expect(page.getByRole('main')).toContainText(email);

    // The SDK client, knowing nothing but the server URL: 401 → metadata → registration → authorize.
    const provider = new MemoryProvider();
    const first = new Client({ name: 'sdk-test', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider }))).rejects.toThrow(UnauthorizedError);
    expect(provider.info?.client_id, 'registered itself').toBeTruthy();
    const authUrl = provider.authorizationUrl!;
    expect(authUrl.toString()).toContain(`${issuer}/authorize`);
    expect(authUrl.searchParams.get('resource')).toBe(mcp.url);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');

    // Registration is reviewed in this realm: the person sees that the app waits.
    const person = await browser.newPage();
    await visit(person, authUrl);
    await expect(person.getByTestId('authorize-error')).toContainText('awaiting approval by the security team');

    // A reviewer approves it from the queue (the count shows in the navigation).
    await page.goto('/review');
    await hydrated(page);
    await expect(page.getByTestId('review-count')).toBeVisible();
    const card = page.getByTestId('review-item').filter({ hasText: provider.info!.client_id });
    await expect(card).toContainText('MCP SDK test client');
    await expect(card.getByTestId('risk-signals')).toContainText('Loopback redirects only');
    await card.getByRole('button', { name: 'Approve' }).click();
    await page.getByLabel('Reason (required)').fill('SDK interop test');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Approve' }).click();
    await expect(card).toHaveCount(0);

    // Now the person signs in and agrees; the browser goes back to the app with a code.
    await visit(person, authUrl);
    await person.getByLabel('Email').fill(email);
    await person.getByLabel('Password').fill('grace-password-123');
    await person.getByRole('button', { name: 'Sign in' }).click();
    await expect(person.getByTestId('client-name')).toHaveText('MCP SDK test client');
    await expect(person.getByTestId('client-verified')).toBeVisible();
    await expect(person.getByTestId('consent-warning')).toContainText('loopback');
    const back = person.waitForURL(/127\.0\.0\.1:8976\/callback/);
    await person.getByRole('button', { name: 'Allow' }).click();
    await back;
    const returned = new URL(person.url());
    expect(returned.searchParams.get('iss')).toBe(issuer);
    const code = returned.searchParams.get('code')!;

    // The SDK redeems the code (PKCE, resource) and the tool call goes through.
    const transport = new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider });
    await transport.finishAuth(code);
    expect(provider.saved?.refresh_token, 'offline_access gives a refresh token').toBeTruthy();
    const client = new Client({ name: 'sdk-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider }));
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    const who = JSON.parse((result.content as { text: string }[])[0].text);
    expect(who.sub).toMatch(/^psn_/);
    expect(who.client_id).toBe(provider.info!.client_id);
    expect(who.scopes).toEqual(['tools:call']);
    await client.close();

    // A token for another resource is useless here.
    const other = await startMcpServer(issuer, ['tools:call']);
    try {
      const res = await fetch(other.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${provider.saved!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('invalid_token');
    } finally {
      await other.close();
    }

    // The person disconnects the app on their account page; its refresh token stops working.
    await person.goto(`${issuer}/account`);
    await expect(person.getByTestId('connected-app').filter({ hasText: 'MCP SDK test client' })).toBeVisible();
    await person.getByTestId('connected-app').filter({ hasText: 'MCP SDK test client' }).getByRole('button', { name: 'Disconnect' }).click();
    await expect(person.getByTestId('no-apps')).toBeVisible();
    const refreshed = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: provider.info!.client_id, refresh_token: provider.saved!.refresh_token! }),
    });
    expect(refreshed.status).toBe(400);
    expect((await refreshed.json()).error).toBe('invalid_grant');
    expect(errors).toEqual([]);
  } finally {
    await mcp.close();
    await callback.close();
  }
});
