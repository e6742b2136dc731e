import { test, expect } from '@playwright/test';
import { ADMIN, createRealm, hydrated, login, registerResource, trackErrors } from './helpers';

test('a reviewer approves a self-registered machine client and picks what it may get tokens for', async ({ page, request }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  const realm = `rev-${suffix}`;
  await createRealm(page, realm, 'Review desk');
  await page.getByTestId('realm-switcher').selectOption(realm);
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
  await expect(page.getByTestId('toast').filter({ hasText: '1 client(s) decided.' })).toBeVisible();
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
  await page.getByTestId('realm-switcher').selectOption(realm);
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
  await expect(page.getByTestId('toast').filter({ hasText: '1 client(s) decided.' })).toBeVisible();
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
  await expect(page.getByTestId('toast').filter({ hasText: '1 client(s) decided.' })).toBeVisible();
  expect((await token()).status(), 'works again').toBe(200);
  expect(errors).toEqual([]);
});
