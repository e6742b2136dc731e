// `portcullis-cli` as a person uses it on a headless machine: `login --device` while the
// person approves in a browser, `token --format headers` handed to the official MCP SDK client,
// which reaches the registry's server — the Protect generator's TypeScript server — with it (the
// token is refused by another server), then
// `drift --report` (the console shows the device's findings), `status`, and `logout`, after
// which `token` asks for a new sign-in and never opens a browser.
import { test, expect, type APIRequestContext } from '@playwright/test';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ADMIN, check, hydrated, login, registerResource, startGenerated } from './helpers';
import { startMcpServer } from '../mcp/server';

/** `target/debug/portcullis-cli`, which the Rust tests build with the server. */
const CLI = path.resolve(__dirname, '../../target/debug/portcullis-cli');

async function call(api: APIRequestContext, baseURL: string, fn: string, form: Record<string, string>) {
  const res = await api.post(`/api/${fn}`, { form, headers: { origin: baseURL } });
  expect(res.ok(), `${fn}: ${await res.text()}`).toBeTruthy();
  return res.json();
}

test('portcullis-cli signs in with a device code and hands an MCP client a five-minute token for one server', async ({ page, browser, baseURL }) => {
  test.setTimeout(120_000);
  const suffix = Date.now().toString(36);
  // A realm of its own (the other tests find the default realm's registry empty).
  const realm = `laptops-${suffix}`;
  const issuer = `${baseURL}/realms/${realm}`;
  const PERSON = { email: `grace-${suffix}@example.com`, password: 'a-long-enough-password' };
  let mail: { url: string; local: string; close: () => Promise<void> } | undefined;
  let other: Awaited<ReturnType<typeof startMcpServer>> | undefined;
  const home = mkdtempSync(path.join(tmpdir(), 'portcullis-cli-'));
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, 'config'),
    XDG_CACHE_HOME: path.join(home, 'cache'),
    PORTCULLIS_CLI_CREDENTIALS: 'file',
  };
  const cli = (...args: string[]) => spawnSync(CLI, args, { env, encoding: 'utf8', timeout: 30_000 });
  try {
    // The admin: both servers are resources; the registry gives the mail server (Portcullis
    // authorizes it) to the ring "everyone", which they are in; the registry takes sign-ins.
    await login(page, ADMIN);
    const api = page.request;
    await call(api, baseURL!, 'realms/create', { name: realm, display_name: 'Laptops' });
    await call(api, baseURL!, 'session/realm', { name: realm });
    await call(api, baseURL!, 'people/create', { email: PERSON.email, display_name: 'Grace', roles: '', password: PERSON.password, confirm: PERSON.password });
    await page.goto('/');
    // Known by https URLs (as behind a TLS-terminating proxy), listening on loopback here.
    // The mail server is what the console's Protect generator writes (TypeScript), run as is.
    const mailUrl = `https://mail-${suffix}.example.com/mcp`;
    const generated = await call(api, baseURL!, 'integration/protect', { server_url: mailUrl, resource_name: 'Mail', scopes: 'tools:call', documentation_url: '' });
    const source = generated.artifacts.find((a: { id: string }) => a.id === 'typescript').text as string;
    const dir = path.join(__dirname, '..', 'test-results', `generated-cli-${suffix}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'server.mjs'), source);
    const port = 18981;
    const server = await startGenerated(process.execPath, path.join(dir, 'server.mjs'), port, {});
    mail = { url: mailUrl, local: `http://127.0.0.1:${port}/mcp`, close: async () => { server.kill(); } };
    other = await startMcpServer(issuer, ['tools:call'], `https://other-${suffix}.example.com/mcp`);
    await registerResource(page, { id: `mail-${suffix}`, name: 'Mail', uri: mail.url, scopes: 'tools:call' });
    await registerResource(page, { id: `other-${suffix}`, name: 'Other', uri: other.url, scopes: 'tools:call' });
    await call(api, baseURL!, 'registry/settings', { api_access: 'bearer' });
    let revision: number = (await call(api, baseURL!, 'registry/get', {})).revision;
    revision = await call(api, baseURL!, 'registry/groups', { revision: String(revision), mode: 'allowlist', rings: 'everyone', units: '' });
    revision = (await call(api, baseURL!, 'registry/save-server', {
      revision: String(revision),
      replacing: '',
      'form[id]': `mail-${suffix}`,
      'form[title]': 'Mail',
      'form[transport]': 'remote',
      'form[auth_mode]': 'portcullis',
      'form[auth_scopes]': 'tools:call',
      'form[url]': mail.url,
      'form[rings][0]': 'everyone',
    })).revision;
    await call(api, baseURL!, 'registry/publish', { revision: String(revision) });
    await call(api, baseURL!, 'registry/add-member', { kind: 'ring', id: 'everyone', member_kind: 'person', member: PERSON.email });

    // Not signed in yet: `token` says what to run, exit 3, no browser.
    const before = cli('token', '--resource', mail.url, '--server', baseURL!, '--realm', realm);
    expect(before.status).toBe(3);
    expect(before.stderr).toContain('portcullis-cli login --server');

    // `login --device` prints a code; the person enters it in a browser and allows.
    const child = spawn(CLI, ['login', '--server', baseURL!, '--realm', realm, '--device'], { env });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.stdout.on('data', (d) => { stdout += d; });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await expect.poll(() => stderr, { timeout: 15_000 }).toMatch(/enter the code [A-Z]{4}-[A-Z]{4}/);
    const code = stderr.match(/enter the code ([A-Z]{4}-[A-Z]{4})/)![1];
    const verification = stderr.match(/open (\S+) and enter/)![1];
    const person = await browser.newContext();
    const p = await person.newPage();
    await p.goto(verification);
    await p.getByLabel('Code shown on your device').fill(code.toLowerCase());
    await p.getByRole('button', { name: 'Continue' }).click();
    await p.getByLabel('Email').fill(PERSON.email);
    await p.getByLabel('Password').fill(PERSON.password);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await expect(p.getByTestId('client-name')).toHaveText('Portcullis CLI');
    await expect(p.getByTestId('client-verified')).toBeVisible();
    await p.getByRole('button', { name: 'Allow' }).click();
    await expect(p.getByTestId('device-done')).toBeVisible();
    await person.close();
    expect(await exited, stderr).toBe(0);
    expect(stdout).toContain('Signed in to');
    expect(stdout).toContain('a file only you can read');

    // `token --format headers`: what Claude Code's headersHelper reads.
    const t = cli('token', '--resource', mail.url, '--format', 'headers');
    expect(t.status, t.stderr).toBe(0);
    const headers = JSON.parse(t.stdout);
    expect(headers.Authorization).toMatch(/^Bearer ey/);
    const claims = JSON.parse(Buffer.from(headers.Authorization.split('.')[1], 'base64url').toString());
    expect(claims.aud).toBe(mail.url);
    expect(claims.client_id).toBe('portcullis-cli');
    expect(claims.mcp_server).toBe(`mail-${suffix}`);
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(300);
    // Cached: a second call within the lifetime costs no exchange and gives the same token.
    expect(JSON.parse(cli('token', '--resource', mail.url).stdout)).toEqual(headers);
    // With the cache gone, the stored sign-in is refreshed (and rotated) for a new token.
    rmSync(path.join(home, 'cache', 'portcullis', 'tokens'), { recursive: true, force: true });
    const renewed = cli('token', '--resource', mail.url);
    expect(renewed.status, renewed.stderr).toBe(0);
    expect(JSON.parse(renewed.stdout).Authorization).not.toBe(headers.Authorization);
    rmSync(path.join(home, 'cache', 'portcullis', 'tokens'), { recursive: true, force: true });
    expect(cli('token', '--resource', mail.url).status, 'the rotated refresh token was kept').toBe(0);

    // The official SDK client with that header reaches the server and calls its tool.
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mail.local), { requestInit: { headers } }));
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    const who = JSON.parse((result.content as { text: string }[])[0].text);
    expect(who.client_id).toBe('portcullis-cli');
    expect(who.scopes).toEqual(['tools:call']);
    expect(who.mcp_server).toBe(`mail-${suffix}`);
    await client.close();
    // The other server refuses it.
    const refused = await fetch(other.local, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(refused.status).toBe(401);
    // Nor does the registry give a token for a server it does not list for this person.
    const none = cli('token', '--resource', other.url, '--format', 'raw');
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('does not give this server to you');

    // `pull` reads the registry (access: bearer) with the same sign-in.
    const pulled = cli('pull', '--server', baseURL!, '--realm', realm, '--ring', 'everyone', '--json');
    expect(pulled.status, pulled.stderr).toBe(0);
    expect(JSON.parse(pulled.stdout).servers).toContain(`mail-${suffix}`);

    // `drift --report`: a server the registry does not list, with a secret in its URL, in
    // Claude Code's config; the report reaches the console without the secret.
    writeFileSync(path.join(home, '.claude.json'), JSON.stringify({
      mcpServers: {
        [`mail-${suffix}`]: { type: 'http', url: mail.url },
        shadow: { type: 'http', url: `https://shadow-${suffix}.example.com/mcp/SECRET-PATH?key=SECRET-KEY` },
      },
    }));
    const drift = cli('drift', '--report', '--device', `grace-laptop-${suffix}`);
    expect(drift.status, drift.stderr).toBe(1);
    expect(drift.stdout).toContain(`Report sent for device grace-laptop-${suffix}.`);
    const again = cli('drift', '--report', '--device', `grace-laptop-${suffix}`);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain('less than a minute ago');
    await page.goto('/registry/drift');
    await expect(page.getByTestId('drift-summary')).toContainText('Devices reporting1');
    await expect(page.getByTestId('drift-top')).toContainText('shadow');
    await hydrated(page);
    const problems = await check(page, 'drift-reported');
    await page.getByRole('link', { name: `grace-laptop-${suffix}` }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`grace-laptop-${suffix}`);
    const finding = page.getByTestId('drift-finding');
    await expect(finding).toHaveCount(1);
    await expect(finding).toContainText(`http at shadow-${suffix}.example.com`);
    await expect(finding).toContainText('Remove it from ~/.claude.json');
    expect(await page.content()).not.toContain('SECRET');
    problems.push(...await check(page, 'drift-device'));
    expect(problems).toEqual([]);

    // `env` and `json` formats; `status`.
    expect(cli('token', '--resource', mail.url, '--format', 'env').stdout).toMatch(/^export PORTCULLIS_TOKEN=ey/);
    const status = JSON.parse(cli('status', '--json').stdout);
    expect(status.sessions[0]).toMatchObject({ realm, credential_store: 'file', via: 'device' });
    expect(status.sessions[0].tokens.map((x: { resource: string }) => x.resource)).toContain(mail.url);

    // `logout` revokes and forgets: the next `token` (cache gone too) asks for a sign-in.
    const out = cli('logout');
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toContain('revoked');
    const after = cli('token', '--resource', mail.url, '--server', baseURL!, '--realm', realm);
    expect(after.status).toBe(3);
    expect(after.stderr).toContain('login');
  } finally {
    await mail?.close();
    await other?.close();
  }
});
