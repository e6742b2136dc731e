import { test, expect, Page, APIRequestContext, request } from '@playwright/test';
import { ADMIN, check, hydrated, login, trackErrors } from './helpers';

// The MCP server registry in the console: building the draft with errors on their fields,
// importing a server.json, the resource a remote server is, approval by a second person,
// delivery to a harness; and every registry screen with 500 servers and long names.

const suffix = Date.now().toString(36);
const long = (s: string, n: number) => (s + '-').repeat(Math.ceil(n / (s.length + 1))).slice(0, n).replace(/-$/, 'x');

/** Calls a console server function with `api`'s session. */
async function call(api: APIRequestContext, baseURL: string, fn: string, form: Record<string, string>) {
  const res = await api.post(`/api/${fn}`, { form, headers: { origin: baseURL } });
  expect(res.ok(), `${fn}: ${await res.text()}`).toBeTruthy();
  return res.json();
}

/** A console user with `role`, signed in in a context of their own. */
async function userWithRole(api: APIRequestContext, baseURL: string, role: string) {
  const email = `${role.replace('_', '-')}-${suffix}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = 'a-long-enough-password';
  const issued = await call(api, baseURL, 'users/create', { email, display_name: `Second ${role}`, role });
  const token = new URL(issued.url).searchParams.get('token')!;
  await call(api, baseURL, 'reset/complete', { token, password, confirm: password });
  return { email, password };
}

const SERVER_JSON = JSON.stringify({
  $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
  name: 'io.github.acme/tickets',
  description: 'Tickets',
  version: '2.3.1',
  remotes: [{ type: 'streamable-http', url: 'https://tickets.example.com/mcp' }],
  packages: [{ registryType: 'npm', identifier: '@acme/tickets-mcp', version: '2.3.1', transport: { type: 'stdio' } }],
});

test('an admin builds the registry in the console; a reviewer approves; the release is delivered', async ({ page, baseURL, browser }) => {
  test.setTimeout(120_000);
  const errors = trackErrors(page);
  await login(page, ADMIN);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'MCP registry' }).click();
  await hydrated(page);
  await expect(page.getByText('No servers yet')).toBeVisible();

  // Rings and units first (servers name them).
  await page.getByRole('navigation', { name: 'Registry' }).getByRole('link', { name: 'Rings & units' }).click();
  await hydrated(page);
  await page.getByLabel('Rings', { exact: true }).fill('canary\neveryone');
  await page.getByLabel('Units', { exact: true }).fill('engineering\nengineering/nowhere/platform');
  await page.getByRole('button', { name: 'Save to draft' }).click();
  await expect(page.getByLabel('Units', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByLabel('Units', { exact: true })).toHaveAccessibleDescription(/Line 2: nowhere is not on an earlier line/);
  await page.getByLabel('Units', { exact: true }).fill('engineering\nengineering/platform');
  await page.getByRole('button', { name: 'Save to draft' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Rings and units saved' })).toBeVisible();
  await expect(page.getByTestId('group-row')).toHaveCount(4);

  // A package server: every rule broken at once is shown on its own field.
  await page.goto('/registry/new');
  await hydrated(page);
  await page.getByLabel('Id', { exact: true }).fill('Wiki_Server');
  await page.getByLabel('How it is reached', { exact: true }).selectOption('package');
  await page.getByLabel('Package', { exact: true }).fill('@acme/wiki-mcp');
  await page.getByLabel('Exact version', { exact: true }).fill('^1.2');
  await page.getByLabel('Environment', { exact: true }).fill('WIKI_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  await page.getByRole('button', { name: 'Save to draft' }).click();
  for (const [label, message] of [['Id', /lowercase/i], ['Exact version', /exact/i], ['Environment', /WIKI_TOKEN/]] as const) {
    await expect(page.getByLabel(label, { exact: true })).toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByLabel(label, { exact: true })).toHaveAccessibleDescription(message);
  }
  await expect(page.getByLabel('Id', { exact: true })).toBeFocused();
  await page.getByLabel('Id', { exact: true }).fill('wiki');
  await page.getByLabel('Exact version', { exact: true }).fill('1.2.3');
  await page.getByLabel('Environment', { exact: true }).fill('WIKI_TOKEN=${WIKI_TOKEN}');
  await page.getByRole('checkbox', { name: 'canary' }).check();
  await page.getByRole('button', { name: 'Save to draft' }).click();
  await expect(page).toHaveURL(/\/registry\/servers\/wiki$/);
  await expect(page.getByText('New in draft')).toBeVisible();
  await expect(page.getByText('npx -y @acme/wiki-mcp@1.2.3')).toBeVisible();

  // A remote server Portcullis authorizes is a protected resource: create it from here.
  await page.goto('/registry/new');
  await hydrated(page);
  await page.getByLabel('Id', { exact: true }).fill('payments');
  await page.getByLabel('Title', { exact: true }).fill('Payments');
  await page.getByLabel('URL', { exact: true }).fill(`https://payments-${suffix}.example.com/mcp`);
  await page.getByLabel('How clients authenticate', { exact: true }).selectOption('portcullis');
  await page.getByLabel('Scopes', { exact: true }).fill('pay:read');
  await page.getByRole('checkbox', { name: 'platform' }).check();
  await page.getByRole('button', { name: 'Save to draft' }).click();
  await expect(page).toHaveURL(/\/registry\/servers\/payments$/);
  await hydrated(page);
  const card = page.getByTestId('server-resource');
  await card.getByRole('button', { name: 'Create the resource' }).click();
  await expect(card.getByRole('link', { name: 'payments' })).toBeVisible();
  await card.getByRole('link', { name: 'payments' }).click();
  await expect(page.getByTestId('resource-registry').getByRole('link', { name: 'payments' })).toBeVisible();

  // Import: a pasted server.json becomes a pinned entry, with notes, checked in the form.
  await page.goto('/registry');
  await hydrated(page);
  // Escape closes the dialog and gives focus back to the button that opened it.
  await page.getByRole('button', { name: 'Import server.json' }).click();
  await expect(page.getByTestId('import-dialog').getByLabel('Registry name or URL', { exact: true })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('import-dialog')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Import server.json' })).toBeFocused();
  await page.getByRole('button', { name: 'Import server.json' }).click();
  const dialog = page.getByTestId('import-dialog');
  await expect(dialog.getByLabel('Registry name or URL', { exact: true })).toBeFocused();
  // Shift+Tab from its first control (Close) goes round to its last (Read), not behind it.
  await page.keyboard.press('Shift+Tab');
  await expect(dialog.getByRole('button', { name: 'Close the import' })).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(dialog.getByRole('button', { name: 'Read' })).toBeFocused();
  await dialog.getByLabel('Prefer', { exact: true }).selectOption('npm');
  await dialog.getByLabel('Or paste the server.json', { exact: true }).fill(SERVER_JSON);
  await dialog.getByRole('button', { name: 'Read' }).click();
  await expect(dialog.getByTestId('import-result')).toBeVisible();
  await expect(dialog.getByLabel('Exact version', { exact: true })).toHaveValue('2.3.1');
  await dialog.getByRole('checkbox', { name: 'everyone' }).check();
  await dialog.getByRole('button', { name: 'Save to draft' }).click();
  await expect(page).toHaveURL(/\/registry\/servers\/tickets/);

  // The list filters.
  await page.goto('/registry?transport=remote');
  await hydrated(page);
  await expect(page.getByTestId('registry-row')).toHaveCount(1);
  await expect(page.getByTestId('registry-row')).toContainText('payments');
  await page.goto('/registry?ring=canary');
  await expect(page.getByTestId('registry-row')).toHaveCount(1);
  await expect(page.getByTestId('registry-row')).toContainText('wiki');

  // Approval on; the admin's publish waits for someone else, who sees the digest.
  await page.goto('/registry/publish');
  await hydrated(page);
  await page.getByLabel("Releases wait for a second person's approval").check();
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Registry settings saved' })).toBeVisible();
  await expect(page.getByTestId('publish-draft')).toContainText('3 added');
  await page.getByRole('button', { name: 'Ask for approval' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Ask for approval' }).click();
  const pending = page.getByTestId('pending-request');
  await expect(pending).toBeVisible();
  await expect(pending.getByRole('button', { name: 'Approve and publish' })).toHaveCount(0);
  await expect(pending).toContainText('someone else approves it');
  const digest = (await pending.locator('code').first().textContent())!.trim();
  expect(digest).toMatch(/^[0-9a-f]{64}$/);

  const reviewer = await userWithRole(page.request, baseURL!, 'security_reviewer');
  const other = await browser.newContext({ baseURL });
  const second = await other.newPage();
  await login(second, reviewer);
  await second.goto('/registry/publish');
  await hydrated(second);
  await expect(second.getByTestId('pending-request')).toContainText(digest);
  // The approver sees every field of what is added, not only its id.
  await expect(second.getByTestId('pending-request').getByTestId('diff-added').filter({ hasText: 'wiki' })).toContainText('@acme/wiki-mcp');
  await second.getByRole('button', { name: 'Approve and publish' }).click();
  await second.getByRole('alertdialog').getByRole('button', { name: 'Approve' }).click();
  await expect(second.getByTestId('toast').filter({ hasText: 'Release 1 published.' })).toBeVisible();
  await expect(second.getByTestId('release-row').first()).toContainText('approved by ' + reviewer.email);
  await other.close();

  // Deliver: the canary ring's Claude Code files, with where they go.
  await page.goto('/registry/deliver');
  await hydrated(page);
  await page.getByLabel('Harness', { exact: true }).selectOption('claude-code');
  await page.getByLabel('For the members of', { exact: true }).selectOption('ring:canary');
  await page.getByRole('button', { name: 'Render files' }).click();
  const delivery = page.getByTestId('delivery');
  await expect(delivery).toContainText('Release 1 · 1 server for this group');
  await expect(delivery.getByTestId('delivered-contents').first()).toContainText('@acme/wiki-mcp@1.2.3');
  await expect(delivery.getByTestId('delivered-file').first()).toContainText('macOS');
  await expect(delivery.getByRole('link', { name: 'Download' }).first()).toHaveAttribute('download', /.+/);
  expect(errors).toEqual([]);
});

/** 500 servers with long names, rings and units, one release, and a draft that differs. */
async function seedMany(api: APIRequestContext, baseURL: string) {
  // A realm of its own, selected in the console.
  const realm = `registry-${suffix}`;
  await call(api, baseURL, 'realms/create', { name: realm, display_name: long('Registry screens realm', 60) });
  await call(api, baseURL, 'session/realm', { name: realm });
  const r = await call(api, baseURL, 'registry/get', {});
  let revision: number = r.revision;
  revision = await call(api, baseURL, 'registry/groups', {
    revision: String(revision),
    mode: 'allowlist',
    rings: 'canary early-adopters everyone',
    units: `engineering\nengineering/${long('platform-reliability', 60)}\nfinance\nfinance/treasury`,
  });
  let first = '';
  for (let i = 0; i < 500; i++) {
    const id = `${long('finance-ledger-reconciliation', 26)}-${i}`;
    if (!first) first = id;
    const kind = i % 4;
    const form: Record<string, string> = {
      revision: String(revision),
      replacing: '',
      'form[id]': id,
      'form[title]': long('Finance ledger reconciliation server for the treasury team', 100),
      'form[transport]': kind === 0 ? 'remote' : kind === 3 ? 'command' : 'package',
      'form[auth_mode]': kind === 0 ? 'portcullis' : 'none',
      'form[auth_scopes]': kind === 0 ? 'ledger:read ledger:write' : '',
      'form[url]': `https://${long('ledger', 40)}-${i}.internal.example-corporation.com/${long('mcp/v2', 80)}`,
      'form[package_type]': kind === 1 ? 'npm' : 'pypi',
      'form[package_identifier]': kind === 1 ? `@${long('example-corporation', 40)}/${long('ledger-mcp', 60)}` : long('ledger-mcp', 60),
      'form[package_version]': '12.345.6789',
      'form[command_path]': `/opt/${long('example-corporation', 60)}/bin/ledger-mcp`,
      'form[command_args]': '--read-only\n--tenant=eu-west-1',
      'form[env]': kind === 0 ? '' : 'LEDGER_TOKEN=${LEDGER_TOKEN}',
      'form[tools_deny]': 'delete_entry',
      'form[rings][0]': i % 3 === 0 ? 'canary' : 'everyone',
      'form[units][0]': i % 2 === 0 ? 'finance' : 'treasury',
    };
    revision = (await call(api, baseURL, 'registry/save-server', form)).revision;
  }
  await call(api, baseURL, 'registry/publish', { revision: String(revision) });
  // A draft that differs from the release: one changed, one removed.
  const detail = await call(api, baseURL, 'registry/server', { id: first });
  const changed = Object.fromEntries(Object.entries(detail.form).filter(([k]) => !['rings', 'units'].includes(k)).map(([k, v]) => [`form[${k}]`, String(v)]));
  changed['form[title]'] = long('Renamed finance ledger reconciliation server', 100);
  changed['form[tools_deny]'] = 'delete_entry void_invoice';
  changed['form[rings][0]'] = 'canary';
  changed['form[units][0]'] = 'finance';
  revision = (await call(api, baseURL, 'registry/save-server', { revision: String(detail.revision), replacing: first, ...changed })).revision;
  await call(api, baseURL, 'registry/delete-server', { revision: String(revision), id: `${long('finance-ledger-reconciliation', 26)}-7` });
  return first;
}

test('every registry screen holds 500 servers and long names at 390 and 1280 px, light and dark', async ({ page, baseURL }) => {
  test.setTimeout(600_000);
  await login(page, ADMIN);
  const first = await seedMany(page.request, baseURL!);
  const screens: [string, string, ((p: Page) => Promise<void>)?][] = [
    ['registry', '/registry'],
    ['registry-filtered', '/registry?unpublished=1&transport=remote'],
    ['registry-page-9', '/registry?page=9'],
    ['registry-server', `/registry/servers/${first}`],
    ['registry-server-edit', `/registry/servers/${first}`, async (p) => {
      await p.getByRole('button', { name: 'Edit' }).click();
      await p.getByLabel('URL', { exact: true }).fill('http://ledger.example.com/mcp?tenant=1');
      await p.getByRole('button', { name: 'Save to draft' }).click();
      await expect(p.getByLabel('URL', { exact: true })).toHaveAttribute('aria-invalid', 'true');
    }],
    ['registry-new', '/registry/new'],
    ['registry-import', '/registry', async (p) => {
      await p.getByRole('button', { name: 'Import server.json' }).click();
      await p.getByTestId('import-dialog').getByLabel('Or paste the server.json', { exact: true }).fill(SERVER_JSON);
      await p.getByTestId('import-dialog').getByRole('button', { name: 'Read' }).click();
      await expect(p.getByTestId('import-result')).toBeVisible();
    }],
    ['registry-publish', '/registry/publish', async (p) => {
      await p.getByTestId('release-row').first().getByRole('button', { name: 'Changes' }).click();
      await expect(p.getByTestId('release-row').first().getByTestId('diff')).toBeVisible();
    }],
    ['registry-groups', '/registry/groups', async (p) => {
      await p.getByTestId('group-row').nth(1).getByRole('button', { name: 'Members' }).click();
      await expect(p.getByText('Nobody yet.')).toBeVisible();
    }],
    ['registry-deliver', '/registry/deliver', async (p) => {
      await p.getByLabel('Harness', { exact: true }).selectOption('codex');
      await p.getByRole('button', { name: 'Render files' }).click();
      await expect(p.getByTestId('delivery')).toBeVisible();
    }],
  ];
  const problems: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width > 800 ? 900 : 844 });
      for (const [name, path, act] of screens) {
        await page.goto(path);
        await hydrated(page);
        await page.waitForLoadState('networkidle');
        if (act) await act(page);
        problems.push(...await check(page, `${name}-${width}-${scheme}`));
      }
    }
  }
  expect(problems).toEqual([]);
});
