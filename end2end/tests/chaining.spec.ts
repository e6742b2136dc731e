// Identity chaining with Portcullis as the enterprise identity provider, both ways, driven by
// the official TypeScript SDK's cross-app access (enterprise-managed authorization) client:
// Ada signs in to the service desk app with OpenID Connect at the company realm; the admin lists
// the apps realm's authorization server as trusting the company realm (Trusting servers page);
// the SDK's CrossAppAccessProvider trades her ID token there for an ID-JAG
// (discoverAndRequestJwtAuthGrant) and the ID-JAG at the apps realm for a token, and calls a tool
// of its MCP server as Ada, created there just in time. Disabling the trusting server ends it.
import { test, expect, type APIRequestContext, type Page } from '@playwright/test';
import { Client, CrossAppAccessProvider, StreamableHTTPClientTransport, discoverAndRequestJwtAuthGrant } from '@modelcontextprotocol/client';
import { createHash, randomBytes } from 'node:crypto';
import { ADMIN, hydrated, login, trackErrors } from './helpers';
import { startMcpServer } from '../mcp/server';

const CALLBACK = 'http://127.0.0.1:8977/callback';

async function call(api: APIRequestContext, baseURL: string, fn: string, form: Record<string, string>) {
  const res = await api.post(`/api/${fn}`, { form, headers: { origin: baseURL } });
  expect(res.ok(), `${fn}: ${await res.text()}`).toBeTruthy();
  return res.json();
}

async function callbackListener(): Promise<{ close(): Promise<void> }> {
  const http = await import('node:http');
  const server = http.createServer((_, res) => { res.end('back in the app'); });
  await new Promise<void>((resolve) => server.listen(8977, '127.0.0.1', () => resolve()));
  return { close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Ada signs in to `client` at `issuer` with OpenID Connect (code + PKCE): its token response. */
async function signIn(person: Page, api: APIRequestContext, o: { issuer: string; client: string; secret: string; resource: string; email: string; password: string }) {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const url = new URL(`${o.issuer}/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code', client_id: o.client, redirect_uri: CALLBACK, code_challenge: challenge,
    code_challenge_method: 'S256', state: 'st', nonce: 'n-ada', resource: o.resource, scope: 'portal:read openid email profile',
  })) url.searchParams.set(k, v);
  await person.goto(url.toString());
  await person.getByLabel('Email').fill(o.email);
  await person.getByLabel('Password').fill(o.password);
  await person.getByRole('button', { name: 'Sign in' }).click();
  // What the app learns about her is on the consent page.
  await expect(person.getByRole('main')).toContainText('See your email address');
  const back = person.waitForURL(/127\.0\.0\.1:8977\/callback/);
  await person.getByRole('button', { name: 'Allow' }).click();
  await back;
  const code = new URL(person.url()).searchParams.get('code')!;
  const res = await api.post(`${o.issuer}/token`, {
    form: { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier, client_id: o.client, client_secret: o.secret },
  });
  expect(res.ok(), await res.text()).toBeTruthy();
  return res.json();
}

test('the TypeScript SDK trades an ID token of the company realm for a token at an app realm that trusts it', async ({ page, browser, baseURL }) => {
  test.setTimeout(120_000);
  const suffix = Date.now().toString(36);
  const company = `company-${suffix}`;
  const apps = `apps-${suffix}`;
  const idp = `${baseURL}/realms/${company}`;
  const as = `${baseURL}/realms/${apps}`;
  const ada = { email: `ada-${suffix}@example-corporation.com`, password: 'ada-password-1234' };
  let mcp: Awaited<ReturnType<typeof startMcpServer>> | undefined;
  const callback = await callbackListener();
  try {
    const errors = trackErrors(page);
    await login(page, ADMIN);
    const api = page.request;
    // The apps realm: its MCP server and the service desk's client there.
    await call(api, baseURL!, 'realms/create', { name: apps, display_name: 'Apps' });
    await call(api, baseURL!, 'session/realm', { name: apps });
    mcp = await startMcpServer(as, ['tools:call']);
    await call(api, baseURL!, 'resources/create', { slug: 'tickets', display_name: 'Tickets', uri: mcp.url, scopes: 'tools:call', token_ttl_secs: '', signing_alg: '' });
    const there = await call(api, baseURL!, 'clients/create', { client_id: 'desk-app', name: 'Service desk', auth_method: 'client_secret_basic', scope: '', contacts: '', jwks: '' });
    // The company realm: Ada, a resource of its own, and the service desk as an OpenID Connect client.
    await call(api, baseURL!, 'realms/create', { name: company, display_name: 'Example Corporation' });
    await call(api, baseURL!, 'session/realm', { name: company });
    await call(api, baseURL!, 'resources/create', { slug: 'portal', display_name: 'Portal', uri: `https://portal-${suffix}.example.com/mcp`, scopes: 'portal:read', token_ttl_secs: '', signing_alg: '' });
    await call(api, baseURL!, 'people/create', { email: ada.email, display_name: 'Ada Lovelace', roles: '', password: ada.password, confirm: ada.password });
    const desk = await call(api, baseURL!, 'clients/create', {
      client_id: 'service-desk', name: 'Service desk', auth_method: 'client_secret_post', scope: 'portal:read', contacts: '', jwks: '', redirect_uris: CALLBACK,
    });

    // Ada signs in to the service desk: an ID token for it, with her email.
    const person = await browser.newPage();
    const tokens = await signIn(person, api, { issuer: idp, client: 'service-desk', secret: desk.secret, resource: `https://portal-${suffix}.example.com/mcp`, ...ada });
    const idToken = tokens.id_token as string;
    expect(idToken, 'an ID token').toBeTruthy();

    // The admin lists the apps realm as trusting the company realm, for the service desk.
    await page.goto('/trusting-servers');
    await hydrated(page);
    await expect(page.getByRole('heading', { name: 'Trusting servers' })).toBeVisible();
    await expect(page.getByText(`${idp}/jwks`, { exact: true })).toBeVisible();
    await page.getByRole('button', { name: 'Add a server' }).click();
    await expect(page.getByLabel('Issuer', { exact: true })).toBeFocused();
    await page.getByLabel('Issuer', { exact: true }).fill(as);
    await page.getByLabel('Name', { exact: true }).fill('Apps realm');
    await page.getByLabel('Resources', { exact: true }).fill(mcp.url);
    // A client that does not exist is refused on its field.
    await page.getByLabel('Clients', { exact: true }).fill('nobody');
    await page.getByRole('button', { name: 'Add it' }).click();
    await expect(page.getByLabel('Clients', { exact: true })).toHaveAttribute('aria-invalid', 'true');
    await page.getByLabel('Clients', { exact: true }).fill('service-desk -> desk-app');
    await page.getByRole('button', { name: 'Add it' }).click();
    const card = page.getByTestId('trusting-server').filter({ hasText: 'Apps realm' });
    await expect(card).toContainText(as);
    await expect(card).toContainText('service-desk → desk-app');
    await expect(card).toContainText('As the client asks');

    // The apps realm trusts the company realm's ID-JAGs (its published keys), creating people.
    await call(api, baseURL!, 'session/realm', { name: apps });
    const jwks = await (await api.get(`${idp}/jwks`)).text();
    await call(api, baseURL!, 'identity-providers/create', {
      issuer: idp, display_name: 'Example Corporation', jwks_uri: '', jwks, algorithms: '', clients: 'desk-app', create_people: 'on',
    });

    // The SDK: the ID-JAG from the company realm, then a token at the apps realm, then the tool.
    const jags: string[] = [];
    const provider = new CrossAppAccessProvider({
      assertion: async (ctx) => {
        const result = await discoverAndRequestJwtAuthGrant({
          idpUrl: idp, audience: ctx.authorizationServerUrl, resource: ctx.resourceUrl,
          idToken, clientId: 'service-desk', clientSecret: desk.secret, scope: ctx.scope, fetchFn: ctx.fetchFn,
        });
        jags.push(result.jwtAuthGrant);
        return result.jwtAuthGrant;
      },
      clientId: 'desk-app',
      clientSecret: there.secret,
      expectedIssuer: as,
    });
    const client = new Client({ name: 'chaining-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider }));
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    const who = JSON.parse((result.content as { text: string }[])[0].text);
    expect(who.sub, 'a person of the apps realm, made just in time').toMatch(/^psn_/);
    expect(who.client_id).toBe('desk-app');
    await client.close();
    expect(jags).toHaveLength(1);

    // The apps realm's People show Ada, through the company's identity provider.
    await page.goto('/people');
    await hydrated(page);
    await expect(page.getByTestId('person-row').filter({ hasText: ada.email })).toContainText('Through an identity provider');

    // Disabled at the company realm (confirmed), the next exchange is refused.
    await call(api, baseURL!, 'session/realm', { name: company });
    await page.goto('/trusting-servers');
    await hydrated(page);
    await card.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Disable' }).click();
    await expect(card).toContainText('Disabled');
    await expect(discoverAndRequestJwtAuthGrant({
      idpUrl: idp, audience: as, resource: mcp.url, idToken, clientId: 'service-desk', clientSecret: desk.secret,
    })).rejects.toThrow(/unauthorized_client/);
    // The company realm's audit log says what was issued, for where.
    await page.goto('/audit');
    await hydrated(page);
    await expect(page.getByRole('main')).toContainText('token.id_jag_issue');
    if (process.env.E2E_SCREENSHOTS) {
      await page.goto('/trusting-servers');
      await hydrated(page);
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await page.screenshot({ path: `test-results/trusting-servers-${width}.png`, fullPage: true });
      }
    }
    expect(errors).toEqual([]);
    await person.close();
  } finally {
    await mcp?.close();
    await callback.close();
  }
});
