import { test, expect } from '@playwright/test';
import { ADMIN, switchRealm, createRealm, hydrated, login, registerResource, trackErrors } from './helpers';

test('a reviewer approves a self-registered machine client and picks what it may get tokens for', async ({ page, request }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  const realm = `rev-${suffix}`;
  await createRealm(page, realm, 'Review desk');
  await switchRealm(page, realm);
  await expect(page.locator('header')).toContainText('Review desk');
  await hydrated(page);
  await registerResource(page, { id: 'ledger-mcp', name: 'Ledger MCP', uri: 'https://ledger.example.com/mcp', scopes: 'ledger:read ledger:write' });
  await registerResource(page, { id: 'mail-mcp', name: 'Mail MCP', uri: 'https://mail.example.com/mcp', scopes: 'mail:send' });

  // A CI job registers itself (the realm reviews registrations by default).
  const registered = await request.post(`/realms/${realm}/connect/register`, {
    data: { client_name: 'Nightly ledger export', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post', scope: 'ledger:read' },
  });
  expect(registered.status()).toBe(201);
  const { client_id, client_secret } = await registered.json();
  const token = () => request.post(`/realms/${realm}/token`, {
    form: { grant_type: 'client_credentials', client_id, client_secret, resource: 'https://ledger.example.com/mcp' },
  });
  expect((await token()).status(), 'pending: no token').toBe(400);

  await page.goto('/review');
  await hydrated(page);
  const card = page.getByTestId('review-item').filter({ hasText: client_id });
  await expect(card.getByTestId('risk-signals')).toContainText('Machine client (client credentials)');
  await card.getByRole('button', { name: 'Approve' }).click();
  const dialog = page.getByRole('alertdialog');
  const access = dialog.getByTestId('approval-access');
  await expect(access).toContainText('Ledger MCP');
  await expect(access).toContainText('Mail MCP');
  // Ticking a resource offers its scopes, the ones the client registered for already picked.
  await access.getByLabel(/Ledger MCP/).check();
  const scopes = access.getByRole('group', { name: 'Scopes for Ledger MCP' });
  await expect(scopes.getByLabel('ledger:read')).toBeChecked();
  await expect(scopes.getByLabel('ledger:write')).not.toBeChecked();
  await page.getByLabel('Reason (required)').fill('Export job of the finance team');
  // No scope, no grant: the approval waits for one.
  await scopes.getByLabel('ledger:read').uncheck();
  await expect(dialog.getByRole('button', { name: 'Approve' })).toBeDisabled();
  await scopes.getByLabel('ledger:read').check();
  await dialog.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Approved Nightly ledger export.' })).toBeVisible();
  await expect(card).toHaveCount(0);

  const answer = await token();
  expect(answer.status()).toBe(200);
  expect((await answer.json()).scope).toBe('ledger:read');
  const mail = await request.post(`/realms/${realm}/token`, {
    form: { grant_type: 'client_credentials', client_id, client_secret, resource: 'https://mail.example.com/mcp' },
  });
  expect(mail.status(), 'nothing granted for mail').toBe(400);

  // The approved list shows it, with when it last got a token.
  await page.goto('/review?state=approved');
  await hydrated(page);
  await expect(page.getByTestId('review-item').filter({ hasText: client_id })).toContainText('Last token');
  expect(errors).toEqual([]);
});

test('an approved client is revoked with a reason, and an admin restores it without its old tokens', async ({ page, request }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  const realm = `rvk-${suffix}`;
  await createRealm(page, realm, 'Revocations');
  await switchRealm(page, realm);
  await expect(page.locator('header')).toContainText('Revocations');
  await hydrated(page);
  await registerResource(page, { id: 'ledger-mcp', name: 'Ledger MCP', uri: 'https://ledger.example.com/mcp', scopes: 'ledger:read' });
  const registered = await request.post(`/realms/${realm}/connect/register`, {
    data: { client_name: 'Nightly ledger export', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post', scope: 'ledger:read' },
  });
  expect(registered.status()).toBe(201);
  const answer = await registered.json();
  expect(answer.review_status, 'the registration says it waits').toBe('pending');
  expect(answer.review_note).toContain('/review');
  const { client_id, client_secret } = answer;
  const token = () => request.post(`/realms/${realm}/token`, {
    form: { grant_type: 'client_credentials', client_id, client_secret, resource: 'https://ledger.example.com/mcp' },
  });

  await page.goto('/review');
  await hydrated(page);
  await page.getByTestId('review-item').filter({ hasText: client_id }).getByRole('button', { name: 'Approve' }).click();
  let dialog = page.getByRole('alertdialog');
  await dialog.getByLabel(/Ledger MCP/).check();
  await dialog.getByLabel('Reason (required)').fill('Export job of the finance team');
  await dialog.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Approved Nightly ledger export.' })).toBeVisible();
  const before = await token();
  expect(before.status()).toBe(200);

  // Revoked from its page: the dialog says what it cannot reach, and a reason is required.
  await page.goto(`/clients/${client_id}`);
  await hydrated(page);
  await page.getByRole('button', { name: 'Revoke client' }).click();
  dialog = page.getByRole('alertdialog');
  await expect(dialog).toContainText('Servers that verify tokens themselves');
  await expect(dialog.getByRole('button', { name: 'Revoke' })).toBeDisabled();
  await dialog.getByLabel('Reason (required)').fill('Its secret leaked in a build log');
  await dialog.getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByTestId('client-review')).toContainText('revoked');
  await expect(page.getByTestId('client-review')).toContainText('Its secret leaked in a build log');
  expect((await token()).status(), 'no tokens while revoked').toBe(401);

  // Restored from the Revoked tab: new tokens only.
  await page.goto('/review?state=revoked');
  await hydrated(page);
  await page.getByTestId('review-item').filter({ hasText: client_id }).getByRole('button', { name: 'Restore' }).click();
  dialog = page.getByRole('alertdialog');
  await expect(dialog).toContainText('stay dead');
  await dialog.getByLabel('Reason (required)').fill('Secret rotated by the finance team');
  await dialog.getByRole('button', { name: 'Restore' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Restored Nightly ledger export.' })).toBeVisible();
  expect((await token()).status(), 'works again').toBe(200);
  expect(errors).toEqual([]);
});

test('one inbox: a reviewer finds and decides clients of two realms by keyboard, without switching realm', async ({ page, request }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  const [north, south] = [`north-${suffix}`, `south-${suffix}`];
  await createRealm(page, north, `North desk ${suffix}`);
  await createRealm(page, south, `South desk ${suffix}`);
  const register = async (realm: string, name: string) => {
    const r = await request.post(`/realms/${realm}/connect/register`, {
      data: { client_name: name, redirect_uris: ['http://127.0.0.1/callback', 'http://localhost/callback'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'] },
    });
    expect(r.status()).toBe(201);
    return (await r.json()).client_id as string;
  };
  await register(north, `Editor ${suffix} one`);
  await register(north, `Editor ${suffix} two`);
  const southId = await register(south, `Agent ${suffix} three`);

  // The selected realm stays the default one: the inbox shows both realms' clients.
  await page.goto(`/review?q=${suffix}`);
  await hydrated(page);
  const cards = page.getByTestId('review-item');
  await expect(cards).toHaveCount(3);
  await expect(cards.filter({ hasText: `South desk ${suffix}` })).toHaveCount(1);
  await expect(cards.filter({ hasText: `North desk ${suffix}` })).toHaveCount(2);
  // Redirect URIs one per line.
  await expect(cards.first().getByRole('listitem')).toHaveCount(2);
  await expect(page.getByTestId('review-count')).toBeVisible();

  // Filters: one realm, by keyboard (search field, then the realm list, then Apply).
  await page.getByLabel('Search').focus();
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('review-filters').getByLabel('Realm', { exact: true })).toBeFocused();
  await page.getByTestId('review-filters').getByLabel('Realm', { exact: true }).selectOption(south);
  await page.getByRole('button', { name: 'Apply' }).press('Enter');
  await expect(page).toHaveURL(new RegExp(`realm=${south}`));
  await expect(cards).toHaveCount(1);
  await expect(cards.first()).toContainText(southId);
  await page.goto(`/review?q=${suffix}&kind=metadata_document`);
  await hydrated(page);
  await expect(page.getByText('No clients match')).toBeVisible();
  await page.getByRole('link', { name: 'Clear' }).click();
  await expect(page).toHaveURL(/\/review$/);

  // One by keyboard (the first card, whichever it is: the three registered within a second):
  // focus then lands on the next card's Approve.
  await page.goto(`/review?q=${suffix}`);
  await hydrated(page);
  const names = [`Editor ${suffix} one`, `Editor ${suffix} two`, `Agent ${suffix} three`];
  const firstName = (await cards.first().getByRole('heading').textContent())!.trim();
  expect(names).toContain(firstName);
  const rest = names.filter((n) => n !== firstName);
  await cards.first().getByRole('button', { name: 'Approve' }).press('Enter');
  let dialog = page.getByRole('alertdialog');
  await dialog.getByLabel('Reason (required)').fill('Checked with its owner');
  await dialog.getByRole('button', { name: 'Approve' }).press('Enter');
  await expect(page.getByTestId('toast').filter({ hasText: `Approved ${firstName}.` })).toBeVisible();
  await expect(cards).toHaveCount(2);
  await expect(cards.first().getByRole('button', { name: 'Approve' })).toBeFocused();

  // The other two at once: the dialog lists what it acts on; the toast names them.
  await page.getByRole('button', { name: 'Select all 2 on this page' }).press('Enter');
  await page.getByRole('button', { name: 'Approve selected' }).press('Enter');
  dialog = page.getByRole('alertdialog');
  await expect(dialog.getByTestId('bulk-list').getByRole('listitem')).toHaveCount(2);
  for (const name of rest) await expect(dialog.getByTestId('bulk-list')).toContainText(name);
  await dialog.getByLabel('Reason (required)').fill('Team editors, checked with their owners');
  await dialog.getByRole('button', { name: 'Approve' }).press('Enter');
  const toast = page.getByTestId('toast').filter({ hasText: 'Approved 2 clients:' });
  for (const name of rest) await expect(toast).toContainText(name);
  await expect(cards).toHaveCount(0);
  // None left: focus goes to the list's heading.
  await expect(page.locator('#review-list')).toBeFocused();

  // Approved lists them, in both realms, none of them an administrator's client.
  await page.goto(`/review?state=approved&q=${suffix}`);
  await hydrated(page);
  await expect(cards).toHaveCount(3);
  // Each card opens its client in its own realm, and its history.
  const southCard = cards.filter({ hasText: southId });
  await expect(southCard.getByRole('link', { name: 'History' })).toHaveAttribute('href', new RegExp(`realm=${south}`));
  await southCard.getByRole('link', { name: 'Open client' }).click();
  await expect(page).toHaveURL(new RegExp(`^[^?]*//[^/]+/clients/${southId}$`));
  await expect(page.locator('header')).toContainText(`South desk ${suffix}`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText(`Agent ${suffix} three`);
  expect(errors).toEqual([]);
});
