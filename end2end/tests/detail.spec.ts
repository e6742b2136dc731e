import { test, expect, Page } from '@playwright/test';
import { ADMIN, createClient, createRealm, hydrated, login, registerResource, trackErrors } from './helpers';

/** Creates an agent from the Agents screen; it opens on its own page. */
async function createAgent(page: Page, name: string, roles: string) {
  await page.goto('/agents');
  await hydrated(page);
  await page.getByRole('button', { name: 'New agent' }).first().click();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Owner').fill('owner@example.com');
  await page.getByLabel('Roles').fill(roles);
  await page.getByRole('button', { name: 'Create agent' }).click();
  await expect(page).toHaveURL(new RegExp(`/agents/${name}$`));
  await hydrated(page);
}

test('a client and an agent are edited on their pages, and their history shows each change', async ({ page }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  await createClient(page, { clientId: `edit-${suffix}`, name: 'Before', scope: 'tools:read' });
  await page.goto(`/clients/edit-${suffix}`);
  await hydrated(page);
  await page.getByRole('button', { name: 'Edit' }).first().click();
  const name = page.getByLabel('Name');
  await name.fill('');
  await name.fill('x'.repeat(100));
  await expect(name).toHaveAttribute('maxlength', '100');
  await name.fill('After');
  await page.getByLabel('Contacts').fill('not-an-email');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByLabel('Contacts')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByLabel('Contacts')).toBeFocused();
  await page.getByLabel('Contacts').fill('team@example.com');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'After saved.' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'After', level: 1 })).toBeVisible();
  await expect(page.getByTestId('client-detail')).toContainText('team@example.com');
  // Its own history, newest first, with a link to all of it in the audit log.
  const history = page.getByTestId('history');
  await expect(history.getByTestId('history-row').first()).toContainText('client.update');
  await expect(history.getByTestId('history-row').last()).toContainText('client.create');
  await expect(history.getByRole('link', { name: 'All in the audit log' })).toHaveAttribute('href', `/audit?about=client%3Aedit-${suffix}`);

  // An agent: a past expiry is refused on the field, with the reason.
  await createAgent(page, `ed-${suffix}`, 'tools:read');
  await page.getByRole('button', { name: 'Edit' }).first().click();
  await page.getByLabel('Expires (UTC)').fill('2020-01-01T00:00');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByLabel('Expires (UTC)')).toHaveAccessibleDescription(/in the past/);
  await page.getByLabel('Expires (UTC)').fill('2099-01-01T00:00');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('agent-detail')).toContainText('expires');
  await expect(page.getByTestId('agent-detail').locator('time')).toHaveAttribute('datetime', '2099-01-01T00:00:00Z');
  expect(errors).toEqual([]);
});

test('moving a client between agents and unbinding it are confirmed in accessible dialogs', async ({ page }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  await createClient(page, { clientId: `mover-${suffix}`, name: 'Mover', scope: 'tools:read' });
  await createAgent(page, `first-${suffix}`, 'tools:read');
  const picker = page.getByRole('combobox', { name: 'Bind a client' });
  // Keyboard only: type, arrow down to the match, Enter.
  await picker.fill(`mover-${suffix}`);
  await expect(page.getByRole('listbox').getByRole('option')).toHaveCount(1);
  await picker.press('ArrowDown');
  await expect(page.getByRole('listbox').getByRole('option').first()).toHaveAttribute('aria-selected', 'true');
  await picker.press('Enter');
  await page.getByRole('alertdialog').getByRole('button', { name: 'Bind client' }).press('Enter');
  await expect(page.getByTestId('bound-client')).toHaveCount(1);

  // Binding it to a second agent is a move: the dialog names both agents and asks first.
  await createAgent(page, `second-${suffix}`, 'tools:read');
  await picker.fill(`mover-${suffix}`);
  await expect(page.getByRole('listbox').getByRole('option')).toHaveCount(1);
  await expect(page.getByRole('listbox').getByRole('option')).toContainText(`Acts for agent first-${suffix}`);
  await page.getByRole('listbox').getByRole('option').first().click();
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toHaveAccessibleName(`Move mover-${suffix} to second-${suffix}?`);
  await expect(dialog).toContainText(`It acts for agent first-${suffix} now;`);
  // Focus starts on Cancel, Tab stays inside, Escape cancels.
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Move client' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(dialog.getByRole('button', { name: 'Move client' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('bound-client')).toHaveCount(0);
  // Confirmed, it moves.
  await picker.fill(`mover-${suffix}`);
  await expect(page.getByRole('listbox').getByRole('option')).toHaveCount(1);
  await page.getByRole('listbox').getByRole('option').first().click();
  await dialog.getByRole('button', { name: 'Move client' }).click();
  await expect(page.getByTestId('bound-client')).toHaveCount(1);
  await page.goto(`/agents/first-${suffix}`);
  await expect(page.getByTestId('bound-client')).toHaveCount(0);

  // Unbinding asks too, and focus returns to the button that opened the dialog.
  await page.goto(`/agents/second-${suffix}`);
  await hydrated(page);
  const unbind = page.getByTestId('bound-client').getByRole('button', { name: 'Unbind' });
  await unbind.click();
  await expect(dialog).toHaveAccessibleName(`Unbind mover-${suffix} from second-${suffix}?`);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(unbind).toBeFocused();
  await unbind.click();
  await dialog.getByRole('button', { name: 'Unbind' }).click();
  await expect(page.getByTestId('bound-client')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('the user menu closes on Escape and on a click outside, and signs out without JavaScript', async ({ page, browser }) => {
  await login(page, ADMIN);
  await hydrated(page);
  const menu = page.getByTestId('user-menu');
  await menu.click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeHidden();
  await expect(menu).toBeFocused();
  await menu.click();
  await page.getByRole('heading', { name: 'Overview' }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeHidden();

  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const plain = await ctx.newPage();
  await login(plain, ADMIN);
  await plain.getByTestId('user-menu').click();
  await plain.getByRole('button', { name: 'Sign out' }).click();
  await expect(plain).toHaveURL(/\/login$/);
  await ctx.close();
});

test('on a phone the navigation opens over a backdrop and closes with its button or the backdrop', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await login(page, ADMIN);
  await hydrated(page);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav).toBeHidden();
  await page.getByRole('button', { name: 'Open navigation' }).click();
  await expect(nav).toBeVisible();
  await expect(nav.getByText('Installation')).toBeVisible();
  await page.getByRole('button', { name: 'Close navigation' }).click();
  await expect(nav).toBeHidden();
  await page.getByRole('button', { name: 'Open navigation' }).click();
  await page.getByTestId('nav-backdrop').click({ position: { x: 370, y: 400 } });
  await expect(nav).toBeHidden();
  // By keyboard: focus moves into the open menu, Escape closes it and focus returns.
  await page.getByRole('button', { name: 'Open navigation' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: 'Close navigation' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(nav).toBeHidden();
  await expect(page.getByRole('button', { name: 'Open navigation' })).toBeFocused();
});

test('renaming a realm shows its old and new issuer first; a role change says what the role may do', async ({ page, baseURL }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  await createRealm(page, `ops-${suffix}`, 'Operations');
  await page.getByRole('link', { name: 'Operations' }).click();
  await hydrated(page);
  await page.getByRole('button', { name: 'Edit' }).first().click();
  await page.getByLabel('Name', { exact: true }).fill(`ops2-${suffix}`);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toHaveAccessibleName(`Rename realm ops-${suffix}?`);
  await expect(dialog.getByTestId('issuer-change')).toContainText(`${baseURL}/realms/ops-${suffix}`);
  await expect(dialog.getByTestId('issuer-change')).toContainText(`${baseURL}/realms/ops2-${suffix}`);
  await dialog.getByRole('button', { name: 'Rename realm' }).click();
  await expect(page).toHaveURL(new RegExp(`/realms/ops2-${suffix}$`));
  await expect(page.getByTestId('realm-detail')).toContainText(`${baseURL}/realms/ops2-${suffix}`);
  await expect(page.getByTestId('history-row').first()).toContainText('realm.update');

  // A console user: the role is changed only after a dialog that names both roles.
  await page.goto('/users');
  await hydrated(page);
  await page.getByRole('button', { name: 'New user' }).click();
  await page.getByLabel('Email').fill(`role-${suffix}@example.com`);
  await page.getByLabel('Name', { exact: true }).fill('Role Tester');
  await page.getByLabel('Role', { exact: true }).selectOption('admin');
  await page.getByRole('button', { name: 'Create user' }).click();
  await page.getByRole('link', { name: 'Role Tester' }).first().click();
  await hydrated(page);
  await page.getByLabel('Role', { exact: true }).selectOption('developer');
  await expect(page.getByText('Developers read resources')).toBeVisible();
  await page.getByRole('button', { name: 'Change role' }).click();
  await expect(dialog).toHaveAccessibleName(`Change role-${suffix}@example.com's role from admin to developer?`);
  await expect(dialog).toContainText('They stop being an admin');
  await dialog.getByRole('button', { name: 'Change role' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'is now developer' })).toBeVisible();
  await expect(page.getByTestId('history-row').first()).toContainText('user.role_change');
  expect(errors).toEqual([]);
});

test('the overview lists the realm endpoints to copy, counts that open their lists, and a checklist that ticks itself', async ({ page, baseURL }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  // The realm has a resource (whatever ran before): the first step is done.
  const suffix = Date.now().toString(36);
  await registerResource(page, { id: `ov-${suffix}`, name: 'Overview MCP', uri: `https://ov-${suffix}.example.com/mcp`, scopes: 'tools:call' });
  await page.goto('/');
  await hydrated(page);
  const endpoints = page.getByTestId('endpoints');
  await expect(endpoints.locator('dd')).toHaveCount(9);
  await expect(endpoints).toContainText(`${baseURL}/realms/default/authorize`);
  await expect(endpoints).toContainText(`${baseURL}/.well-known/oauth-authorization-server/realms/default`);
  await expect(endpoints).toContainText(`${baseURL}/realms/default/jwks`);
  await expect(endpoints.getByRole('button', { name: /copy/i }).first()).toBeVisible();
  await expect(page.getByTestId('checklist-step').first()).toHaveAttribute('data-done', 'true');
  await expect(page.getByTestId('token-curl')).toContainText(`${baseURL}/realms/default/token`);
  const resources = page.getByTestId('overview-count').filter({ hasText: 'Resources' });
  await resources.click();
  await expect(page).toHaveURL(/\/resources$/);
  expect(errors).toEqual([]);
});

test("a resource's introspection credentials: created and rotated on its page, shown with where they go, and in its history", async ({ page, request, baseURL }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  const slug = `cred-${suffix}`;
  await registerResource(page, { id: slug, name: 'Credentials MCP', uri: `https://${slug}.example.com/mcp`, scopes: 'tools:call' });
  await page.goto(`/resources/${slug}`);
  await hydrated(page);
  const card = page.getByTestId('resource-credentials');
  await card.getByRole('button', { name: 'Create introspection credentials' }).click();
  const panel = card.getByTestId('issued-secret');
  await expect(panel).toContainText(`${slug}-introspect`);
  const secret = (await panel.locator('code').last().textContent())!.trim();
  // The settings to give the MCP server carry the secret until "Done"; the card names the
  // client, its endpoint and its one live secret.
  await expect(card.getByTestId('credentials-env')).toContainText(`INTROSPECTION_CLIENT_ID=${slug}-introspect`);
  await expect(card.getByTestId('credentials-env')).toContainText(`INTROSPECTION_CLIENT_SECRET=${secret}`);
  await expect(card).toContainText(`${baseURL}/realms/default/introspect`);
  await expect(card.getByTestId('credentials-secrets')).toContainText('1 live');
  await expect(card.getByRole('link', { name: `${slug}-introspect` })).toHaveAttribute('href', `/clients/${slug}-introspect`);
  await expect(page.getByTestId('history-row').first()).toContainText('client.create');
  // The secret works at the introspection endpoint.
  const basic = (s: string) => 'Basic ' + Buffer.from(`${slug}-introspect:${s}`).toString('base64');
  const check = async (s: string) =>
    (await request.post('/realms/default/introspect', { headers: { authorization: basic(s) }, form: { token: 'not-a-token' } })).status();
  expect(await check(secret)).toBe(200);
  await panel.getByRole('button', { name: 'Done' }).click();
  await expect(card.getByTestId('credentials-env')).toContainText('# INTROSPECTION_CLIENT_SECRET: shown once');
  // Rotating issues a new one; the old one keeps working for the overlap.
  await card.getByRole('button', { name: 'Rotate secret' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Rotate', exact: true }).click();
  const rotated = (await card.getByTestId('issued-secret').locator('code').last().textContent())!.trim();
  expect(rotated).not.toBe(secret);
  await expect(card.getByTestId('credentials-secrets')).toContainText('2 live');
  expect(await check(rotated)).toBe(200);
  expect(await check(secret)).toBe(200);
  expect(await check('wrong')).toBe(401);
  await expect(page.getByTestId('history-row').first()).toContainText('client.secret_rotate');
  // A leaked secret: rotating without overlap ends every old one at once.
  await card.getByRole('button', { name: 'Rotate, ending old secrets now' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Rotate and end old secrets' }).click();
  const shownSecret = card.getByTestId('issued-secret').locator('code').last();
  await expect(shownSecret).not.toHaveText(rotated);
  const fresh = (await shownSecret.textContent())!.trim();
  await expect(card.getByTestId('credentials-secrets')).toContainText('1 live');
  expect(await check(fresh)).toBe(200);
  expect(await check(rotated)).toBe(401);
  expect(await check(secret)).toBe(401);
  // The client page names the resource its credentials serve.
  await card.getByRole('link', { name: `${slug}-introspect` }).click();
  await expect(page).toHaveURL(new RegExp(`/clients/${slug}-introspect$`));
  await expect(page.getByRole('link', { name: slug, exact: true })).toHaveAttribute('href', `/resources/${slug}`);
  expect(errors).toEqual([]);
});
