import { test, expect } from '@playwright/test';
import { ADMIN, DEVELOPER, hydrated, login, trackErrors } from './helpers';

test('a wrong password is refused with a clear message', async ({ page }) => {
  await page.goto('/login');
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/login\?error=invalid/);
  await expect(page.getByTestId('login-error')).toHaveText('Invalid email or password.');
});

test('sign-in works without JavaScript', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  await context.close();
});

test('admin signs in, sees the realm issuer, and signs out', async ({ page }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  await expect(page.getByTestId('issuer')).toContainText('/realms/default');
  await hydrated(page);
  await page.getByTestId('user-menu').click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto('/users');
  await expect(page).toHaveURL(/\/login\?next=%2Fusers/);
  expect(errors).toEqual([]);
});

test('a developer is refused the Users screen, also by a direct server-function call', async ({ page }) => {
  await login(page, DEVELOPER);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Overview' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Users' })).toHaveCount(0);
  await expect(nav.getByRole('link', { name: 'Audit log' })).toHaveCount(0);
  await page.goto('/users');
  await expect(page.getByTestId('not-allowed')).toContainText('Your role does not include this page.');
  await hydrated(page);
  const result = await page.evaluate(async () => {
    const res = await fetch('/api/users/list', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'query=&after=&before=',
    });
    return { status: res.status, body: await res.text() };
  });
  expect(result.status).toBe(403);
  expect(result.body).toContain('Forbidden');
});

test('an admin creates a user, bad input is shown inline, and the audit row appears', async ({ page }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
  await expect(page.getByRole('heading', { name: 'Users' })).toBeVisible();
  await hydrated(page);
  // A client-side interaction: the create form opens without a round trip.
  const email = `e2e-${Date.now()}@example.com`;

  // A duplicate email is refused inline and nothing is created.
  await page.getByRole('button', { name: 'New user' }).click();
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Name', { exact: true }).fill('Duplicate');
  await page.getByRole('button', { name: 'Create user' }).click();
  // On the field it is about, which gets focus.
  const emailField = page.getByLabel('Email');
  await expect(emailField).toHaveAttribute('aria-invalid', 'true');
  await expect(emailField).toHaveAccessibleDescription(/already exists/);
  await expect(emailField).toBeFocused();
  await expect(page.getByTestId('user-row')).toHaveCount(2);

  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Name', { exact: true }).fill('Eve Tester');
  await page.getByLabel('Role', { exact: true }).selectOption('security_reviewer');
  await page.getByRole('button', { name: 'Create user' }).click();
  await expect(page.getByTestId('issued-link')).toContainText(email);
  await expect(page.getByTestId('issued-link')).toContainText('/reset-password?token=');
  await expect(page.getByTestId('user-row')).toHaveCount(3);
  await expect(page.getByTestId('toast').filter({ hasText: 'created' })).toBeVisible();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
  const row = page.getByTestId('audit-row').filter({ hasText: 'user.create' }).first();
  await expect(row).toContainText(ADMIN.email);
  await expect(row).toContainText(email);
  // It reads as a story: what happened in words, the object by its name (its id stays shown).
  await expect(row).toContainText('Console user created');
  await expect(row.getByRole('link', { name: 'Eve Tester' })).toHaveAttribute('title', /^user:usr_/);
  // Actions are grouped by area; a period ends now.
  await hydrated(page);
  await page.getByLabel('Action').selectOption('user.create');
  await page.getByLabel('Period').selectOption('1h');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page).toHaveURL(/since=1h/);
  await expect(page.getByTestId('audit-row').first()).toContainText('Console user created');
  await expect(page.locator('#f-action optgroup[label="Console users"] option[value="user.create"]')).toHaveCount(1);
  await expect(page.getByText(/^\d[\d,]* matching events?$/)).toBeVisible();

  // The log pages by event id; a page below the newest offers the way back up.
  await page.goto('/audit?before=999999999');
  await expect(page.getByTestId('audit-row').filter({ hasText: 'user.create' }).first()).toBeVisible();
  await expect(page.getByRole('link', { name: 'Newer' })).toHaveCount(0);
  await page.getByRole('link', { name: 'Newest' }).click();
  await expect(page).toHaveURL(/\/audit$/);
  await expect(page.getByRole('link', { name: 'Newest' })).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('the dark-mode toggle is remembered across reloads', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await login(page, ADMIN);
  await hydrated(page);
  const html = page.locator('html');
  await expect(html).not.toHaveClass(/dark/);
  await page.getByTestId('theme-toggle').click();
  await expect(html).toHaveClass(/dark/);
  await page.reload();
  await expect(html).toHaveClass(/dark/);
  await hydrated(page);
  await page.getByTestId('theme-toggle').click();
  await expect(html).not.toHaveClass(/dark/);
  await page.reload();
  await expect(html).not.toHaveClass(/dark/);
});

test('a list pages by key with Next, Previous and First, in the browser and by keyboard', async ({ page, baseURL }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const prefix = `pg${Date.now().toString(36)}`;
  for (let i = 0; i < 23; i++) {
    const res = await page.request.post('/api/clients/create', {
      form: { client_id: `${prefix}-${String(i).padStart(2, '0')}`, name: `Paged ${i}`, auth_method: 'none', scope: '', contacts: '', jwks: '' },
      headers: { origin: baseURL! },
    });
    expect(res.ok(), await res.text()).toBeTruthy();
  }
  await page.goto(`/clients?q=${prefix}`);
  await hydrated(page);
  // The first Tab stop skips the navigation, also once the page is hydrated.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('main#main')).toBeFocused();
  const rows = page.getByTestId('client-row');
  const pager = page.getByRole('navigation', { name: 'Pagination' });
  await expect(rows).toHaveCount(20);
  await expect(pager).toContainText('Showing 1–20 of 23');
  await expect(pager.getByRole('link', { name: 'Previous' })).toHaveCount(0);
  // Next, from the keyboard: the page after the last key shown.
  await pager.getByRole('link', { name: 'Next' }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`after=${prefix}-19`));
  await expect(rows).toHaveCount(3);
  await expect(pager).toContainText('Showing 21–23 of 23');
  // The last page has no Next: focus is on the count, not back at the top of the page.
  await expect(pager.getByText('Showing 21–23 of 23')).toBeFocused();
  await expect(rows.first()).toContainText(`${prefix}-20`);
  await expect(pager.getByRole('link', { name: 'Next' })).toHaveCount(0);
  // Previous: the 20 before the first key shown, in order.
  await pager.getByRole('link', { name: 'Previous' }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`before=${prefix}-20`));
  await expect(rows).toHaveCount(20);
  // Back on the first page (no Previous): the count again; Next is one Tab away.
  await expect(pager.getByText('Showing 1–20 of 23')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(pager.getByRole('link', { name: 'Next' })).toBeFocused();
  await expect(rows.first()).toContainText(`${prefix}-00`);
  // Copy link on a client's page names the realm.
  await rows.first().getByRole('link').first().click();
  await expect(page.getByTestId('copy-object-link')).toHaveAttribute('data-href', `/go/default/clients/${prefix}-00`);
  expect(errors).toEqual([]);
});

test('leaving the not-found page inside the app keeps what the role may see, and the audit log hydrates', async ({ page }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  await page.goto('/no-such-page');
  await hydrated(page);
  await expect(page.getByTestId('not-found')).toBeVisible();
  // The router builds the console frame again in the browser: it waits for the role's abilities.
  await page.getByRole('link', { name: 'Back to the overview' }).click();
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Clients', level: 1 })).toBeVisible();
  await expect(page.getByTestId('not-allowed')).toHaveCount(0);
  // The audit log's realm filter comes with the session: rendered and hydrated alike.
  await page.goto('/audit');
  await hydrated(page);
  const realms = page.locator('#f-realm');
  await expect(realms).toContainText('All realms');
  await expect(realms.locator('option')).not.toHaveCount(1);
  expect(errors).toEqual([]);
});
