import { test, expect } from '@playwright/test';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ADMIN, DEVELOPER, hydrated, login, trackErrors } from './helpers';

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
  await page.getByLabel('Scopes', { exact: true }).fill('tools:call offline_access');
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
  for (const id of ['metadata-urls', 'step-up', 'register', 'token', 'call']) {
    await expect(page.getByTestId(`artifact-${id}`)).toBeVisible();
  }
  // A table of contents leads to each section (focus on its heading).
  await page.getByRole('navigation', { name: 'On this page' }).getByRole('link', { name: 'Connect MCP clients' }).click();
  await expect(page.getByRole('heading', { name: 'Connect MCP clients', level: 2 })).toBeFocused();
  // Server code and client configurations are tabs, one at a time; arrow keys move between them.
  const code = page.getByRole('tablist', { name: 'A complete server' });
  await expect(page.getByTestId('artifact-typescript')).toBeVisible();
  await expect(page.getByTestId('artifact-rust')).toBeHidden();
  await code.getByRole('tab', { name: 'TypeScript' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(code.getByRole('tab', { name: 'Rust' })).toBeFocused();
  await expect(code.getByRole('tab', { name: 'Rust' })).toHaveAttribute('aria-selected', 'true');
  for (const id of ['rust-dependencies', 'rust']) await expect(page.getByTestId(`artifact-${id}`)).toBeVisible();
  await expect(page.getByTestId('artifact-typescript')).toBeHidden();
  await page.keyboard.press('End');
  await expect(page.getByTestId('artifact-python')).toBeVisible();
  const clients = page.getByRole('tablist', { name: 'Connect MCP clients' });
  for (const [tab, id] of [['VS Code', 'vscode'], ['MCP Inspector', 'inspector'], ['Claude Code', 'claude-code']]) {
    await clients.getByRole('tab', { name: tab }).click();
    await expect(page.getByTestId(`artifact-${id}`)).toBeVisible();
  }
  // The Inspector opens on this server over Streamable HTTP.
  const inspector = new URL(await page.getByTestId('artifact-inspector').locator('pre').innerText());
  expect(inspector.searchParams.get('transport')).toBe('streamable-http');
  expect(inspector.searchParams.get('serverUrl')).toBe('https://mcp.example.com/mcp');
  // Copy puts exactly the block's text on the clipboard.
  const block = page.getByTestId('artifact-claude-code');
  await block.getByRole('button', { name: /^Copy/ }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("claude mcp add --transport http payments-mcp 'https://mcp.example.com/mcp'");
  const challenge = page.getByTestId('artifact-challenge');
  await challenge.getByRole('button', { name: /^Copy/ }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await challenge.locator('pre').innerText());
  expect(errors).toEqual([]);
});

test('the MCP authorization screen counts MCP-capable agents, lists them by status and gives the endpoints', async ({ page, baseURL }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  const api = page.request;
  const call = async (fn: string, form: Record<string, string>) => {
    const res = await api.post(`/api/${fn}`, { form, headers: { origin: baseURL! } });
    expect(res.ok(), `${fn}: ${await res.text()}`).toBeTruthy();
  };
  const soon = new Date(Date.now() + 3 * 24 * 3600 * 1000).toISOString().slice(0, 16);
  await call('agents/create', { name: `mcp-soon-${suffix}`, owner: 'ops@example.com', description: '', roles: 'mcp:tools', expires_at: soon });
  await call('agents/create', { name: `mcp-later-${suffix}`, owner: 'ops@example.com', description: '', roles: 'mcp', expires_at: '' });
  await call('agents/create', { name: `plain-${suffix}`, owner: 'ops@example.com', description: '', roles: 'reports', expires_at: '' });
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'MCP authorization' }).click();
  await expect(page.getByRole('heading', { name: 'MCP authorization', level: 1 })).toBeVisible();
  await hydrated(page);
  await expect(page.getByTestId('mcp-figures')).toContainText('Expiring within 14 days');
  const rows = page.getByTestId('agent-row');
  await expect(rows.filter({ hasText: `mcp-soon-${suffix}` })).toBeVisible();
  await expect(rows.filter({ hasText: `plain-${suffix}` })).toHaveCount(0);
  // The expiring figure opens the agents it counts.
  await page.getByTestId('mcp-figure').filter({ hasText: 'Expiring within 14 days' }).click();
  await expect(page).toHaveURL(/show=expiring/);
  await expect(rows.filter({ hasText: `mcp-soon-${suffix}` })).toBeVisible();
  await expect(rows.filter({ hasText: `mcp-later-${suffix}` })).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Expiring', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('mcp-endpoints')).toContainText(`${baseURL}/realms/default/token`);
  expect(errors).toEqual([]);
});

test('a developer submits their server for an admin to enable; an admin registers one in one click', async ({ browser, baseURL }) => {
  const suffix = Date.now().toString(36);
  const generate = async (page: import('@playwright/test').Page, url: string, name: string) => {
    await page.goto('/integration/protect');
    await hydrated(page);
    await page.getByLabel('MCP server URL').fill(url);
    await page.getByLabel('Name (optional)').fill(name);
    await page.getByLabel('Scopes', { exact: true }).fill('tools:call');
    await page.getByRole('button', { name: 'Generate' }).click();
    await expect(page.getByTestId('canonical-resource')).toHaveText(url);
  };
  const dev = await (await browser.newContext({ baseURL })).newPage();
  const errors = trackErrors(dev);
  await login(dev, DEVELOPER);
  await generate(dev, `https://submitted-${suffix}.example.com/mcp`, `Submitted ${suffix}`);
  await dev.getByRole('button', { name: 'Submit for an admin to enable' }).click();
  await expect(dev.getByTestId('registered')).toContainText('Submitted by dev@example.com: waiting for an admin to enable it.');
  // The button is gone: focus is on what the submission became.
  await expect(dev.getByTestId('registered')).toBeFocused();
  // Generating again for the same URL says so instead of offering the button.
  await dev.getByRole('button', { name: 'Generate' }).click();
  await expect(dev.getByTestId('registered')).toContainText(`Submitted ${suffix}`);
  await expect(dev.getByRole('button', { name: 'Submit for an admin to enable' })).toHaveCount(0);
  // A second submission, taken back before an admin decides.
  await generate(dev, `https://withdrawn-${suffix}.example.com/mcp`, `Withdrawn ${suffix}`);
  await dev.getByRole('button', { name: 'Submit for an admin to enable' }).click();
  await dev.getByTestId('registered').getByRole('link', { name: `Withdrawn ${suffix}` }).click();
  await hydrated(dev);
  await dev.getByRole('button', { name: 'Withdraw submission' }).click();
  await expect(dev.getByRole('alertdialog')).toHaveAccessibleName(`Withdraw Withdrawn ${suffix}?`);
  await dev.getByRole('alertdialog').getByRole('button', { name: 'Withdraw', exact: true }).click();
  await expect(dev).toHaveURL(/\/resources$/);
  await expect(dev.getByText('Submission withdrawn.')).toBeVisible();
  await expect(dev.getByTestId('resource-row').filter({ hasText: `Submitted ${suffix}` })).toHaveCount(1);
  await expect(dev.getByTestId('resource-row').filter({ hasText: `Withdrawn ${suffix}` })).toHaveCount(0);
  // A third, which an admin rejects below.
  await generate(dev, `https://rejected-${suffix}.example.com/mcp`, `Rejected ${suffix}`);
  await dev.getByRole('button', { name: 'Submit for an admin to enable' }).click();
  await expect(dev.getByTestId('registered')).toContainText('waiting for an admin');
  // The developer's Overview points to where they can act, not to screens they cannot use.
  await dev.goto('/');
  await expect(dev.getByTestId('checklist').getByRole('link', { name: 'Protect your MCP server' })).toBeVisible();
  await expect(dev.getByTestId('checklist').getByRole('link', { name: 'Clients' })).toHaveCount(0);
  // Left open on the first submission's page while an admin decides on it (below).
  await dev.goto('/resources');
  await dev.getByTestId('resource-row').filter({ hasText: `Submitted ${suffix}` }).getByRole('link').click();
  await hydrated(dev);
  await expect(dev.getByRole('button', { name: 'Withdraw submission' })).toBeVisible();
  expect(errors).toEqual([]);

  const admin = await (await browser.newContext({ baseURL })).newPage();
  await login(admin, ADMIN);
  await admin.goto('/integration');
  await expect(admin.getByTestId('mcp-figure').filter({ hasText: 'Resources waiting for an admin' })).toBeVisible();
  await admin.getByTestId('mcp-figure').filter({ hasText: 'Resources waiting for an admin' }).click();
  await expect(admin.getByTestId('waiting-filter')).toBeVisible();
  const row = admin.getByTestId('resource-row').filter({ hasText: `Submitted ${suffix}` });
  await expect(row.getByTestId('resource-submitted')).toContainText('Submitted by dev@example.com');
  await row.getByRole('link', { name: `Submitted ${suffix}` }).click();
  await hydrated(admin);
  await expect(admin.getByRole('button', { name: 'Withdraw submission' })).toHaveCount(0);
  await admin.getByRole('button', { name: 'Enable', exact: true }).click();
  await expect(admin.getByTestId('resource-detail')).toContainText('Enabled');
  await expect(admin.getByTestId('resource-submitted')).toHaveCount(0);
  // The Enable button gave way to Disable: focus is on the resource's title, not lost.
  await expect(admin.locator('#resource-title')).toBeFocused();
  // Withdrawing from the page opened before that decision says why not, and shows it as it is.
  await dev.getByRole('button', { name: 'Withdraw submission' }).click();
  await dev.getByRole('alertdialog').getByRole('button', { name: 'Withdraw', exact: true }).click();
  await expect(dev.getByText('only an admin can delete it')).toBeVisible();
  await expect(dev.getByTestId('resource-detail')).toContainText('Enabled');
  await expect(dev.getByRole('button', { name: 'Withdraw submission' })).toHaveCount(0);

  // An admin rejects one with a reason; it leaves the waiting list, and its developer sees why.
  await admin.goto('/resources?waiting=1');
  await admin.getByTestId('resource-row').filter({ hasText: `Rejected ${suffix}` }).getByRole('link').click();
  await hydrated(admin);
  await admin.getByRole('button', { name: 'Reject', exact: true }).click();
  const reject = admin.getByRole('alertdialog');
  await expect(reject.getByRole('button', { name: 'Reject submission' })).toBeDisabled();
  await reject.getByLabel('Reason (required)').fill('Use the shared gateway at https://gw.example.com/mcp instead.');
  await reject.getByRole('button', { name: 'Reject submission' }).click();
  await expect(admin.getByTestId('resource-detail')).toContainText('Rejected');
  await expect(admin.getByRole('button', { name: 'Reject', exact: true })).toHaveCount(0);
  await expect(admin.getByRole('heading', { level: 1, name: `Rejected ${suffix}` })).toBeFocused();
  await admin.goto('/resources?waiting=1');
  await expect(admin.getByTestId('resource-row').filter({ hasText: `Rejected ${suffix}` })).toHaveCount(0);
  await dev.goto('/resources');
  await dev.getByTestId('resource-row').filter({ hasText: `Rejected ${suffix}` }).getByRole('link').click();
  await hydrated(dev);
  await expect(dev.getByTestId('resource-submitted')).toContainText('rejected by an admin: Use the shared gateway at https://gw.example.com/mcp instead.');
  await expect(dev.getByRole('button', { name: 'Withdraw submission' })).toBeVisible();

  // An admin's registration is live at once.
  await generate(admin, `https://registered-${suffix}.example.com/mcp`, `Registered ${suffix}`);
  await admin.getByRole('button', { name: 'Register as a protected resource' }).click();
  await expect(admin.getByTestId('registered')).toContainText('Registered: the realm issues tokens for it.');
  await admin.getByTestId('registered').getByRole('link', { name: `Registered ${suffix}` }).click();
  await expect(admin.getByRole('heading', { name: `Registered ${suffix}`, level: 1 })).toBeVisible();
  await expect(admin.getByTestId('resource-detail')).toContainText('tools:call');
  // From a resource's page, the generator starts from it: its URL, name and scopes, generated.
  await hydrated(admin);
  await admin.getByTestId('protect-resource').click();
  await expect(admin.getByTestId('canonical-resource')).toHaveText(`https://registered-${suffix}.example.com/mcp`);
  await expect(admin.getByLabel('MCP server URL')).toHaveValue(`https://registered-${suffix}.example.com/mcp`);
  await expect(admin.getByLabel('Name (optional)')).toHaveValue(`Registered ${suffix}`);
  await expect(admin.getByLabel('Scopes', { exact: true })).toHaveValue('tools:call');
  await expect(admin.getByTestId('registered')).toContainText('Registered: the realm issues tokens for it.');
  // Or from the picker above the form.
  await admin.goto('/integration/protect');
  await hydrated(admin);
  const start = admin.getByLabel('Start from a resource of this realm (optional)');
  await start.selectOption((await start.locator('option', { hasText: `Submitted ${suffix}` }).getAttribute('value'))!);
  await expect(admin.getByTestId('canonical-resource')).toHaveText(`https://submitted-${suffix}.example.com/mcp`);
});

test('the expiry window of the MCP authorization screen is a control', async ({ page }) => {
  await login(page, DEVELOPER);
  await page.goto('/integration');
  await hydrated(page);
  await page.getByLabel('Expiring within (days)').fill('30');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/within=30/);
  await expect(page.getByTestId('mcp-figures')).toContainText('Expiring within 30 days');
  await expect(page.getByLabel('Expiring within (days)')).toHaveValue('30');
});

test('Check an MCP server runs the handshake against a live server and shows each step', async ({ page }) => {
  test.setTimeout(60_000);
  const errors = trackErrors(page);
  await login(page, DEVELOPER);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Check an MCP server' }).click();
  await expect(page.getByRole('heading', { name: 'Check an MCP server', level: 1 })).toBeVisible();
  await hydrated(page);
  const url = page.getByLabel('MCP server URL');
  await url.fill('ftp://mcp.example.com/mcp');
  await page.getByRole('button', { name: 'Check' }).click();
  await expect(url).toHaveAttribute('aria-invalid', 'true');

  // Nothing listens here: the first step says so and the others do not run.
  await url.fill('http://127.0.0.1:9/mcp');
  await page.getByRole('button', { name: 'Check' }).click();
  await expect(page.getByTestId('check-step').first()).toHaveAttribute('data-verdict', 'fail');
  await expect(page.getByTestId('check-step').first()).toContainText('could not be reached');
  await expect(page.locator('[data-testid=check-step][data-verdict=skipped]')).toHaveCount(3);
  await expect(page.locator('[data-testid=check-step][data-step=registered]')).toHaveAttribute('data-verdict', 'fail');
  // The result takes focus.
  await expect(page.getByRole('heading', { name: 'Result' })).toBeFocused();

  // The generated Rust server (built by cargo xtask test), protected by this realm but not
  // registered in it: everything passes but the registration.
  const server = spawn(path.join(__dirname, '..', '..', 'target', 'debug', 'snippet-test-server'), [], { stdio: 'ignore' });
  try {
    await expect.poll(async () => (await fetch('http://127.0.0.1:18961/.well-known/oauth-protected-resource/mcp').catch(() => null))?.status).toBe(200);
    await url.fill('http://127.0.0.1:18961/mcp');
    await page.getByRole('button', { name: 'Check' }).click();
    const step = (id: string) => page.locator(`[data-testid=check-step][data-step=${id}]`);
    // (A warning when no resource of the realm accepts tools:call yet.)
    await expect(step('challenge')).toHaveAttribute('data-verdict', /^(pass|warn)$/);
    await expect(step('metadata')).toHaveAttribute('data-verdict', /^(pass|warn)$/);
    await expect(step('authorization_server')).toHaveAttribute('data-verdict', 'pass');
    await expect(step('registered')).toHaveAttribute('data-verdict', 'fail');
    await expect(step('registered')).toContainText('No resource of this realm has the URL');
    await expect(step('forged_token')).toHaveAttribute('data-verdict', 'pass');
    await expect(page.getByTestId('check-summary')).toContainText('1 of 5 steps failed');
    // What was sent and received is there to read.
    await step('challenge').getByText('What was sent and what came back').click();
    await expect(step('challenge')).toContainText('HTTP 401');
    await expect(step('challenge')).toContainText('www-authenticate: Bearer resource_metadata=');
  } finally {
    server.kill();
  }
  expect(errors).toEqual([]);
});
