// The MCP gateway with the official SDKs on both sides: an upstream built with the TypeScript
// SDK's server (it verifies each token: its own audience), and the TypeScript and Python SDK
// clients calling search_capabilities and execute_capability at /realms/{realm}/mcp with a
// Portcullis token. An admin attaches the server to the agent and accepts its tools in the
// console; a write waits in the Approvals queue until approved there; the Gateway page is
// checked at a phone's and a laptop's width, light and dark.
import { test, expect, type APIRequestContext } from '@playwright/test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { ADMIN, VENV, check, ensurePythonVenv, hydrated, login, registerResource, trackErrors } from './helpers';
import { startMcpServer } from '../mcp/server';

async function call(api: APIRequestContext, baseURL: string, fn: string, form: Record<string, string>) {
  const res = await api.post(`/api/${fn}`, { form, headers: { origin: baseURL } });
  expect(res.ok(), `${fn}: ${await res.text()}`).toBeTruthy();
  return res.json();
}

interface Seen { tool: string; aud: unknown; act: unknown; meta: Record<string, unknown> | undefined }

test.beforeAll(() => {
  test.setTimeout(300_000);
  ensurePythonVenv();
});

test('agents search and call two tools through the gateway with SDK clients; tools are accepted and a write approved in the console', async ({ page, baseURL }) => {
  test.setTimeout(180_000);
  const suffix = Date.now().toString(36);
  const realm = `gateway-${suffix}`;
  const issuer = `${baseURL}/realms/${realm}`;
  const gateway = `${issuer}/mcp`;
  const agent = `${'ticket-triage-agent-for-the-platform-operations-team'}-${suffix}`.slice(0, 63);
  const seen: Seen[] = [];
  let upstream: Awaited<ReturnType<typeof startMcpServer>> | undefined;
  let client: Client | undefined;
  try {
    const errors = trackErrors(page);
    await login(page, ADMIN);
    const api = page.request;
    await call(api, baseURL!, 'realms/create', { name: realm, display_name: 'Gateway' });
    await call(api, baseURL!, 'session/realm', { name: realm });
    upstream = await startMcpServer(issuer, ['tools:call'], undefined, (server) => {
      const record = (tool: string) => (extra: { authInfo?: { token: string }; _meta?: Record<string, unknown> }) => {
        const claims = decodeJwt(extra.authInfo!.token);
        seen.push({ tool, aud: claims.aud, act: claims.act, meta: extra._meta });
      };
      server.registerTool('lookup_ticket', {
        description: 'Reads one ticket by its id',
        inputSchema: { id: z.string().max(40) },
        annotations: { readOnlyHint: true },
      }, async ({ id }, extra) => {
        record('lookup_ticket')(extra as never);
        return { content: [{ type: 'text', text: `ticket ${id}: printer on fire` }] };
      });
      server.registerTool('close_ticket', {
        description: 'Closes a ticket',
        inputSchema: { id: z.string().max(40), note: z.string().max(200) },
        annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      }, async ({ id }, extra) => {
        record('close_ticket')(extra as never);
        return { content: [{ type: 'text', text: `ticket ${id} closed` }] };
      });
    });
    await page.goto('/');
    await registerResource(page, { id: `tickets-${suffix}`, name: 'Tickets', uri: upstream!.url, scopes: 'tools:call' });
    let revision: number = (await call(api, baseURL!, 'registry/get', {})).revision;
    revision = await call(api, baseURL!, 'registry/groups', { revision: String(revision), mode: 'allowlist', rings: 'everyone', units: '' });
    revision = (await call(api, baseURL!, 'registry/save-server', {
      revision: String(revision),
      replacing: '',
      'form[id]': 'tickets',
      'form[title]': 'Service desk tickets',
      'form[transport]': 'remote',
      'form[auth_mode]': 'portcullis',
      'form[auth_scopes]': 'tools:call',
      'form[url]': upstream!.url,
      'form[rings][0]': 'everyone',
    })).revision;
    await call(api, baseURL!, 'registry/publish', { revision: String(revision) });
    await call(api, baseURL!, 'agents/create', { name: agent, owner: 'ops@example.com', description: 'Triage', roles: 'mcp tools:call', expires_at: '' });
    const issued = await call(api, baseURL!, 'clients/create', { client_id: `triage-${suffix}`, name: 'Triage bot', auth_method: 'client_secret_post', scope: 'mcp tools:call', contacts: '', jwks: '' });
    await call(api, baseURL!, 'agents/bind', { client_id: `triage-${suffix}`, agent });
    await call(api, baseURL!, 'registry/add-member', { kind: 'ring', id: 'everyone', member_kind: 'agent', member: agent });

    // The gateway is off until an admin turns it on.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'MCP gateway' }).click();
    await hydrated(page);
    await expect(page.getByRole('main')).toContainText('The gateway is off');
    await page.getByRole('button', { name: 'Turn it on' }).click();
    await expect(page.getByRole('main')).toContainText('Calls waiting for approval');
    await call(api, baseURL!, 'access/grant', { client_id: `triage-${suffix}`, resource: 'mcp-gateway', scopes: 'mcp' });

    // The agent reaches nothing until the server is attached to it (here, in its toolset view).
    await page.getByLabel('Agent', { exact: true }).selectOption(agent);
    const toolset = page.getByTestId('toolset');
    await expect(toolset).toContainText('Not attached to this agent.');
    await toolset.getByRole('button', { name: 'Attach' }).click();
    await expect(toolset).toContainText('attached');
    await expect(toolset).toContainText('No tool accepted yet.');
    // The agent's own page says what is attached and links back to this view, preselected.
    await page.goto(`/agents/${agent}`);
    await hydrated(page);
    await expect(page.getByTestId('agent-attachments')).toContainText('tickets');
    await page.getByRole('link', { name: /What it reaches/ }).click();
    await hydrated(page);
    await expect(page.getByTestId('toolset')).toContainText('attached');

    // A client credentials token for the gateway, used by the official TypeScript SDK client.
    const tokenRes = await page.request.post(`${issuer}/token`, {
      form: { grant_type: 'client_credentials', client_id: `triage-${suffix}`, client_secret: issued.secret, resource: gateway, scope: 'mcp' },
    });
    expect(tokenRes.ok(), await tokenRes.text()).toBeTruthy();
    const token = (await tokenRes.json()).access_token as string;
    client = new Client({ name: 'gateway-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name).sort()).toEqual(['execute_capability', 'search_capabilities']);
    const search = async () => ((await client!.callTool({ name: 'search_capabilities', arguments: {} })).structuredContent as { capabilities: { name: string }[] }).capabilities.map((c) => c.name).sort();
    // First listed: both tools wait for an administrator.
    expect(await search()).toEqual([]);
    await page.reload();
    await hydrated(page);
    const pins = page.getByTestId('pins');
    await expect(pins).toContainText('lookup_ticket');
    await expect(pins).toContainText('close_ticket');
    // Each tool says what accepting it lets agents do.
    await expect(pins).toContainText('read · low risk');
    await expect(pins).toContainText('write · medium risk');
    // Tools waiting, each with its own Accept, on a phone: no sideways scroll.
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await check(page, 'gateway-pins-390')).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });
    await pins.getByRole('button', { name: 'Accept as listed' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Accept' }).click();
    await expect(page.getByRole('main')).toContainText('Every tool listed is accepted');
    expect(await search()).toEqual(['tickets.close_ticket', 'tickets.lookup_ticket']);

    // A read runs at once, with a token exchanged for the upstream and the _meta ids.
    const read = await client.callTool({ name: 'execute_capability', arguments: { name: 'tickets.lookup_ticket', arguments: { id: 'T-1' } } });
    expect(JSON.stringify(read.content)).toContain('printer on fire');
    expect(seen).toHaveLength(1);
    expect(seen[0].aud).toBe(upstream!.url);
    expect((seen[0].act as { sub: string }).sub).toBe('mcp-gateway-introspect');
    expect(String(seen[0].meta?.traceparent)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(seen[0].meta?.agent_id).toBeTruthy();
    // Arguments outside the pinned schema never reach it; nor does any other name.
    const bad = await client.callTool({ name: 'execute_capability', arguments: { name: 'tickets.lookup_ticket', arguments: { id: 7 } } });
    expect(bad.isError).toBe(true);
    await expect(client.callTool({ name: 'execute_capability', arguments: { name: 'Tickets.lookup_ticket', arguments: { id: 'T-1' } } })).rejects.toThrow(/tool_not_found/);
    expect(seen).toHaveLength(1);

    // A write waits for a person: the console's queue (with a badge) approves it.
    const args = { id: 'T-1', note: 'fixed the printer' };
    const waiting = await client.callTool({ name: 'execute_capability', arguments: { name: 'tickets.close_ticket', arguments: args } });
    const approval = (waiting.structuredContent as { status: string; approval_id: string });
    expect(approval.status).toBe('approval_required');
    expect(seen).toHaveLength(1);
    await page.reload();
    await hydrated(page);
    await expect(page.getByTestId('gateway-waiting')).toHaveText('1');
    const card = page.getByTestId('approval');
    await expect(card).toContainText('tickets.close_ticket');
    await expect(card).toContainText('fixed the printer');
    // The page with a call and (below) servers: no sideways scroll, no serious axe finding.
    const problems: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await page.reload();
        await hydrated(page);
        problems.push(...await check(page, `gateway-${width}-${scheme}`));
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
    expect(problems).toEqual([]);
    await card.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByLabel(/Reason/).fill('Printer really is fixed; closing is fine.');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await expect(page.getByRole('main')).toContainText('Nothing waits');
    // The decision is listed with who made it and why.
    const decided = page.getByTestId('decided');
    await expect(decided).toContainText('tickets.close_ticket');
    await expect(decided).toContainText('approved');
    await expect(decided).toContainText('Printer really is fixed');
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      problems.push(...await check(page, `gateway-decided-${width}`));
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(problems).toEqual([]);
    const done = await client.callTool({ name: 'execute_capability', arguments: { name: 'tickets.close_ticket', arguments: args, approval_id: approval.approval_id } });
    expect(JSON.stringify(done.content)).toContain('ticket T-1 closed');
    expect(seen.map((s) => s.tool)).toEqual(['lookup_ticket', 'close_ticket']);

    // The official Python SDK client, with the same token, reaches the same toolset.
    // (Run asynchronously: the upstream lives in this process and must keep answering.)
    const py = await promisify(execFile)(`${VENV}/bin/python`, ['mcp/py_gateway_client.py', gateway, token, 'tickets.lookup_ticket', '{"id": "T-2"}'], { encoding: 'utf8', timeout: 60_000 });
    const out = JSON.parse(py.stdout.trim().split('\n').pop()!);
    expect(out.tools).toEqual(['execute_capability', 'search_capabilities']);
    expect(out.capabilities).toEqual(['tickets.close_ticket', 'tickets.lookup_ticket']);
    expect(out.result).toContain('ticket T-2: printer on fire');
    expect(seen.at(-1)?.meta?.subject_ids).toEqual(['person-7']);

    // Every call has its audit row.
    await page.goto('/audit?action=gateway.call');
    await hydrated(page);
    await expect(page.getByRole('main')).toContainText('gateway.call');
    expect(errors).toEqual([]);
  } finally {
    await client?.close();
    await upstream?.close();
  }
});
