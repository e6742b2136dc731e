import { test, expect } from '@playwright/test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ADMIN, VENV, ensurePythonVenv, login, startGenerated as start } from './helpers';

// The generated server snippets, run as real MCP servers: a Portcullis token reaches a tool,
// a request without one gets exactly the generated challenge, a token for another resource is
// refused, the metadata answers at both well-known URLs, and with the opt-in introspection
// credentials a revoked token is refused at once. A snippet that does not work fails here.

test.beforeAll(() => {
  test.setTimeout(300_000);
  ensurePythonVenv();
});

const ROOT = path.join(__dirname, '..', '..');
// The Rust server is compiled ahead: cargo xtask test builds end2end/rust-server (Cargo.toml and
// src/main.rs, what the generator writes for this very input, which the test checks before
// running it) in an empty directory outside this repository, from crates.io alone.
const RUST_CRATE = path.join(ROOT, 'end2end', 'rust-server');
const LANGUAGES = [
  { id: 'typescript', file: 'server.mjs', runtime: process.execPath, port: 18941 },
  { id: 'python', file: 'server.py', runtime: path.join(__dirname, '..', VENV, 'bin', 'python'), port: 18951 },
  { id: 'rust', file: null, runtime: path.join(ROOT, 'target', 'debug', 'snippet-test-server'), port: 18961 },
];

for (const lang of LANGUAGES) {
test(`the generated ${lang.id} server accepts tokens for itself only and answers exactly the generated challenge`, async ({ page, baseURL }) => {
  test.setTimeout(60_000);
  await login(page, ADMIN);
  const suffix = `${lang.id}-${Date.now().toString(36)}`;
  const port = lang.port;
  const url = `http://127.0.0.1:${port}/mcp`;
  const other = `http://127.0.0.1:${port + 1}/mcp`;
  const call = async (fn: string, form: Record<string, string>) => {
    const res = await page.request.post(`/api/${fn}`, { form, headers: { origin: baseURL! } });
    expect(res.ok(), `${fn}: ${await res.text()}`).toBeTruthy();
    return res.json();
  };
  for (const [slug, uri] of [[`snip-${suffix}`, url], [`snip-other-${suffix}`, other]]) {
    await call('resources/create', { slug, display_name: `Snippet ${slug}`, uri, scopes: 'tools:call', token_ttl_secs: '', signing_alg: '' });
  }
  const issued = await call('clients/create', { client_id: `snip-${suffix}`, name: 'Snippet test client', auth_method: 'client_secret_basic', scope: 'tools:call', contacts: '', jwks: '' });
  for (const resource of [`snip-${suffix}`, `snip-other-${suffix}`]) {
    await call('access/grant', { client_id: issued.client_id, resource, scopes: 'tools:call' });
  }
  const generated = await call('integration/protect', { server_url: url, resource_name: 'Snippet test server', scopes: 'tools:call', documentation_url: '' });
  const artifact = (id: string) => generated.artifacts.find((a: { id: string }) => a.id === id).text as string;
  let file: string | null = null;
  if (lang.file) {
    const dir = path.join(__dirname, '..', 'test-results', `generated-${suffix}`);
    mkdirSync(dir, { recursive: true });
    file = path.join(dir, lang.file);
    writeFileSync(file, artifact(lang.id));
  } else {
    expect(artifact('rust-dependencies'), 'the compiled Rust crate is what the console generates').toBe(readFileSync(path.join(RUST_CRATE, 'Cargo.toml'), 'utf8'));
    expect(artifact(lang.id), 'the compiled Rust server is what the console generates').toBe(readFileSync(path.join(RUST_CRATE, 'src', 'main.rs'), 'utf8'));
  }

  // The opt-in introspection: the resource's own credentials.
  const introspection = await call('resources/credentials', { slug: `snip-${suffix}` });
  const server = await start(lang.runtime, file, port, { INTROSPECTION_CLIENT_ID: introspection.client_id, INTROSPECTION_CLIENT_SECRET: introspection.secret });
  try {
    // Without a token: exactly the generated 401.
    const bare = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(bare.status).toBe(401);
    expect(`WWW-Authenticate: ${bare.headers.get('www-authenticate')}`).toBe(artifact('challenge').split('\n')[1]);
    // Its metadata is served where the generator says, with what it says.
    const metadataUrl = artifact('metadata-urls').split('\n')[0];
    const metadata = await (await fetch(metadataUrl)).json();
    expect(metadata.resource).toBe(url);
    expect(metadata.authorization_servers).toEqual([`${baseURL}/realms/default`]);
    if (lang.id === 'rust') expect(metadata).toEqual(JSON.parse(artifact('metadata')));
    // Some clients ask only the root well-known URL: the same document there.
    const rootUrl = artifact('metadata-urls').split('\n')[1];
    expect(rootUrl).toBe(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource`);
    expect(await (await fetch(rootUrl)).json()).toEqual(metadata);

    const token = async (resource: string) => {
      const res = await fetch(`${baseURL}/realms/default/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${issued.client_id}:${issued.secret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: 'tools:call' }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()).access_token as string;
    };
    // A Portcullis token for this server reaches the tool.
    const client = new Client({ name: 'snippet-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${await token(url)}` } } }));
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(JSON.stringify(result.content)).toContain(issued.client_id);
    await client.close();
    // A token for another resource, from the same realm and client, is refused.
    const foreign = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${await token(other)}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }) });
    expect(foreign.status).toBe(401);
    expect(foreign.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // Revoked at the realm: the introspecting server refuses the token at once, though its
    // signature, audience and exp are still good.
    const revoked = await token(url);
    const revocation = await fetch(`${baseURL}/realms/default/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${issued.client_id}:${issued.secret}`).toString('base64')}` },
      body: new URLSearchParams({ token: revoked }),
    });
    expect(revocation.status).toBe(200);
    const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${revoked}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }) });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // The handshake tester agrees: nothing fails against the generated server.
    const check = await call('integration/check', { server_url: url });
    for (const step of check.steps) expect(['pass', 'warn'], `${step.id}: ${step.reason}`).toContain(step.verdict);
    expect(check.passed).toBe(true);
  } finally {
    server.kill();
  }
});
}
