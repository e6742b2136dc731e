// Enterprise-managed authorization (ID-JAG) as an admin sets it up and a real MCP client uses
// it: the admin trusts the company's identity provider on the Identity providers page; the
// official TypeScript SDK client (its non-interactive flow, with the jwt-bearer grant and an
// ID-JAG the IdP issued) gets a token for the MCP server and calls a tool as the person the
// IdP named, who is created just in time; a replayed ID-JAG is refused; disabling the IdP
// ends it all.
import { test, expect, type APIRequestContext } from '@playwright/test';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ADMIN, hydrated, login, trackErrors } from './helpers';
import { startMcpServer } from '../mcp/server';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

async function call(api: APIRequestContext, baseURL: string, fn: string, form: Record<string, string>) {
  const res = await api.post(`/api/${fn}`, { form, headers: { origin: baseURL } });
  expect(res.ok(), `${fn}: ${await res.text()}`).toBeTruthy();
  return res.json();
}

/** An MCP host whose credentials for this server are a client secret and, for each token, a
 * fresh ID-JAG from the company's IdP (the SDK's non-interactive flow: no redirect URL). */
class IdJagProvider implements OAuthClientProvider {
  saved?: OAuthTokens;
  constructor(private info: OAuthClientInformationMixed, private assertion: () => Promise<string>) {}
  get redirectUrl() { return undefined; }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Agent app', redirect_uris: [], grant_types: [JWT_BEARER], token_endpoint_auth_method: 'client_secret_basic', scope: 'tools:call' };
  }
  clientInformation() { return this.info; }
  tokens() { return this.saved; }
  saveTokens(t: OAuthTokens) { this.saved = t; }
  redirectToAuthorization() { throw new Error('no browser in this flow'); }
  saveCodeVerifier() {}
  codeVerifier(): string { throw new Error('no PKCE in this flow'); }
  async prepareTokenRequest(scope?: string) {
    const params = new URLSearchParams({ grant_type: JWT_BEARER, assertion: await this.assertion() });
    if (scope) params.set('scope', scope);
    return params;
  }
}

test('an admin trusts the company IdP and the TypeScript SDK trades its ID-JAG for a token', async ({ page, baseURL }) => {
  test.setTimeout(90_000);
  const suffix = Date.now().toString(36);
  const realm = `enterprise-${suffix}`;
  const issuer = `${baseURL}/realms/${realm}`;
  const idp = `https://login-${suffix}.example-corporation.com/oauth2/default`;
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'idp-1', alg: 'ES256', use: 'sig' };
  let mcp: Awaited<ReturnType<typeof startMcpServer>> | undefined;
  try {
    const errors = trackErrors(page);
    await login(page, ADMIN);
    const api = page.request;
    await call(api, baseURL!, 'realms/create', { name: realm, display_name: 'Enterprise' });
    await call(api, baseURL!, 'session/realm', { name: realm });
    mcp = await startMcpServer(issuer, ['tools:call']);
    await call(api, baseURL!, 'resources/create', { slug: 'wiki', display_name: 'Wiki', uri: mcp.url, scopes: 'tools:call tools:admin', token_ttl_secs: '', signing_alg: '' });
    const issued = await call(api, baseURL!, 'clients/create', {
      client_id: 'agent-app', name: 'Agent app', auth_method: 'client_secret_basic', scope: '', contacts: '', jwks: '',
    });
    const secret = issued.secret as string;
    expect(secret).toBeTruthy();

    // The admin trusts the IdP for the agent app, creating people it names just in time.
    await page.goto('/identity-providers');
    await hydrated(page);
    await expect(page.getByRole('heading', { name: 'Identity providers' })).toBeVisible();
    await expect(page.getByText(issuer, { exact: true })).toBeVisible();
    await page.getByRole('button', { name: 'Trust a provider' }).click();
    await expect(page.getByLabel('Issuer', { exact: true })).toBeFocused();
    await page.getByLabel('Issuer', { exact: true }).fill(idp);
    await page.getByLabel('Name', { exact: true }).fill('Example Corporation SSO');
    await page.getByLabel('Clients', { exact: true }).fill('agent-app');
    // An empty key set is refused on its field.
    await page.getByLabel('…or its public keys (JWK Set)', { exact: true }).fill('{"keys": []}');
    await page.getByRole('button', { name: 'Trust it' }).click();
    await expect(page.getByLabel('…or its public keys (JWK Set)', { exact: true })).toHaveAttribute('aria-invalid', 'true');
    await page.getByLabel('…or its public keys (JWK Set)', { exact: true }).fill(JSON.stringify({ keys: [jwk] }));
    await page.getByLabel('Create them as new people').check();
    await page.getByRole('button', { name: 'Trust it' }).click();
    const card = page.getByTestId('idp').filter({ hasText: 'Example Corporation SSO' });
    await expect(card).toContainText(idp);
    await expect(card).toContainText('1 pasted public key');
    await expect(card).toContainText('Creates new people');
    await expect(page.getByText('Example Corporation SSO is trusted')).toBeVisible();
    // Its keys as the server sees them; Edit opens the form on its first field.
    await card.getByRole('button', { name: 'Check keys' }).click();
    await expect(card.getByTestId('idp-keys')).toContainText('Keys now: idp-1 (ES256)');
    await card.getByRole('button', { name: 'Edit' }).click();
    await expect(card.getByLabel('Name', { exact: true })).toBeFocused();
    await card.getByRole('button', { name: 'Cancel' }).click();

    // The IdP's ID-JAG for Grace, addressed to this realm, for the agent app and the wiki.
    const email = `grace-${suffix}@example-corporation.com`;
    const assertions: string[] = [];
    const idJag = async () => {
      const jwt = await new SignJWT({ client_id: 'agent-app', resource: mcp.url, scope: 'tools:call tools:admin', email, email_verified: true, name: 'Grace Hopper' })
        .setProtectedHeader({ alg: 'ES256', typ: 'oauth-id-jag+jwt', kid: 'idp-1' })
        .setIssuer(idp).setSubject('00u-grace').setAudience(issuer)
        .setJti(`jag-${assertions.length}-${suffix}`).setIssuedAt().setExpirationTime('5m')
        .sign(privateKey);
      assertions.push(jwt);
      return jwt;
    };

    // The official SDK client, knowing the server URL, its client credentials and the IdP.
    const provider = new IdJagProvider({ client_id: 'agent-app', client_secret: secret }, idJag);
    const client = new Client({ name: 'id-jag-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider }));
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    const who = JSON.parse((result.content as { text: string }[])[0].text);
    expect(who.sub).toMatch(/^psn_/);
    expect(who.client_id).toBe('agent-app');
    expect(who.scopes).toEqual(['tools:call']);
    expect(provider.saved?.refresh_token, 'no refresh token: the app asks the IdP again').toBeUndefined();
    await client.close();

    // The same ID-JAG again: a replay, refused.
    const replay = await api.post(`${issuer}/token`, {
      form: { grant_type: JWT_BEARER, assertion: assertions[0], resource: mcp.url },
      headers: { authorization: `Basic ${Buffer.from(`agent-app:${secret}`).toString('base64')}` },
    });
    expect(replay.status()).toBe(400);
    expect((await replay.json()).error).toBe('invalid_grant');

    // Grace exists now, created by the IdP, and the audit log says how.
    await page.goto('/people');
    await hydrated(page);
    await expect(page.getByTestId('person-row').filter({ hasText: email })).toBeVisible();
    await expect(page.getByTestId('person-row').filter({ hasText: email })).toContainText('Through an identity provider');
    // Their page says where they come from.
    await page.getByTestId('person-row').filter({ hasText: email }).getByRole('link').click();
    await hydrated(page);
    const identities = page.getByTestId('person-identities');
    await expect(identities).toContainText('Example Corporation SSO');
    await expect(identities).toContainText('00u-grace');
    // Unlinked (confirmed), then linked again by hand with the provider's subject.
    await identities.getByRole('button', { name: 'Unlink' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Unlink' }).click();
    await expect(page.getByText('Unlinked:')).toBeVisible();
    await expect(identities).not.toContainText('00u-grace');
    await identities.getByLabel('Identity provider').selectOption({ label: 'Example Corporation SSO' });
    await identities.getByLabel('Their subject (sub) there').fill('00u-grace');
    await identities.getByRole('button', { name: 'Link', exact: true }).click();
    await expect(identities).toContainText('00u-grace');
    if (process.env.E2E_SCREENSHOTS) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.reload();
        await hydrated(page);
        for (const width of [390, 1280]) {
          await page.setViewportSize({ width, height: 900 });
          await page.screenshot({ path: `test-results/person-identities-${width}-${scheme}.png`, fullPage: true });
        }
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1280, height: 720 });
    }
    await page.goto('/audit');
    await hydrated(page);
    await expect(page.getByRole('main')).toContainText('token.id_jag');

    // Disabling the IdP: confirmed, and its next ID-JAG is refused.
    await page.goto('/identity-providers');
    await hydrated(page);
    await card.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Disable' }).click();
    await expect(card).toContainText('Disabled');
    const after = await api.post(`${issuer}/token`, {
      form: { grant_type: JWT_BEARER, assertion: await idJag() },
      headers: { authorization: `Basic ${Buffer.from(`agent-app:${secret}`).toString('base64')}` },
    });
    expect((await after.json()).error).toBe('invalid_grant');
    expect(errors).toEqual([]);
  } finally {
    await mcp?.close();
  }
});
