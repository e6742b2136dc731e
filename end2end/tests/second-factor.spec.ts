// Two-step verification in the browser: an admin requires it for developers; the developer sets
// up an authenticator app at their next sign-in (the key from "Cannot scan it?", codes computed
// here with an independent RFC 6238 implementation), keeps the recovery codes, signs in again
// with a code and with a recovery code, renews the codes on the Account page; the admin sees it
// on the user's page and resets it, which signs the developer out. The requirement and the
// developer's authenticator are removed at the end (other specs sign in as the developer).
import { test, expect, type Page } from '@playwright/test';
import { createHmac } from 'node:crypto';
import { ADMIN, DEVELOPER, hydrated, login, trackErrors } from './helpers';

/** RFC 4648 base32 (the key as the page shows it, spaces ignored). */
function base32(s: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of s.replace(/[\s=]/g, '').toUpperCase()) {
    const v = alphabet.indexOf(c);
    if (v < 0) throw new Error(`not base32: ${c}`);
    bits += v.toString(2).padStart(5, '0');
  }
  const bytes: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** RFC 6238: HMAC-SHA1, 30-second steps, six digits; `ahead` steps after now. */
function totp(key: string, ahead = 0): string {
  const counter = Math.floor(Date.now() / 1000 / 30) + ahead;
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const h = createHmac('sha1', base32(key)).update(msg).digest();
  const o = h[h.length - 1] & 0xf;
  const n = ((h[o] & 0x7f) << 24) | (h[o + 1] << 16) | (h[o + 2] << 8) | h[o + 3];
  return String(n % 1_000_000).padStart(6, '0');
}

// A stuck step fails on its own, leaving time for the clean-up.
test.use({ actionTimeout: 15_000, navigationTimeout: 15_000 });

async function setRequirement(page: Page, developers: boolean) {
  await page.goto('/single-sign-on');
  await hydrated(page);
  const card = page.getByTestId('second-factor-policy');
  const box = card.getByLabel('Developers');
  if (developers) await box.check();
  else await box.uncheck();
  await card.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved: it applies from each account')).toBeVisible();
}

async function passwordStep(page: Page) {
  await page.context().clearCookies();
  await page.goto('/login');
  await page.getByLabel('Email').fill(DEVELOPER.email);
  await page.getByLabel('Password').fill(DEVELOPER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/login\/second-factor$/);
  await expect(page.getByRole('heading', { name: 'Two-step verification' })).toBeVisible();
}

test('a developer sets up an authenticator app when their role requires it, and signs in with codes', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const errors = trackErrors(page);
  const admin = await (await browser.newContext()).newPage();
  await login(admin, ADMIN);
  await setRequirement(admin, true);
  try {
    // Enrolment at sign-in: QR code, the key to type, a wrong code refused on its field.
    await passwordStep(page);
    await hydrated(page);
    await expect(page.getByTestId('enrolment').getByRole('img', { name: /QR code/ })).toBeVisible();
    await page.getByText('Cannot scan it?').click();
    const key = (await page.getByTestId('totp-secret').locator('code').innerText()).trim();
    expect(key.replace(/\s/g, '')).toMatch(/^[A-Z2-7]{32}$/);
    await page.getByLabel('Six-digit code from the app').fill('000000');
    await page.getByRole('button', { name: 'Turn on and sign in' }).click();
    await expect(page.getByText('That code is not right.')).toBeVisible();
    await page.getByLabel('Six-digit code from the app').fill(totp(key));
    await page.getByRole('button', { name: 'Turn on and sign in' }).click();
    const shown = page.getByTestId('recovery-codes').locator('li');
    await expect(shown).toHaveCount(10);
    const codes = await shown.allInnerTexts();
    expect(codes[0]).toMatch(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
    await page.getByTestId('continue').click();
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();

    // The next sign-in asks for a code: a wrong one is refused, the app's next one works.
    await passwordStep(page);
    await page.getByLabel('Code from your authenticator app').fill('123456');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByTestId('second-factor-error')).toContainText('That code is not right');
    await page.getByLabel('Code from your authenticator app').fill(totp(key, 1));
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();

    // A recovery code works once.
    await passwordStep(page);
    await page.getByLabel('Code from your authenticator app').fill(codes[0]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
    await page.goto('/account');
    await hydrated(page);
    await expect(page.getByTestId('second-factor-status')).toContainText('9 recovery codes left');
    // New codes need a code (the used one no longer counts); the old ones stop working.
    await page.getByText('Get new recovery codes').click();
    await page.getByLabel('Code from your app (or a recovery code)').first().fill(codes[0]);
    await page.getByRole('button', { name: 'Get new codes' }).click();
    await expect(page.getByText('That code is not right.')).toBeVisible();
    await page.getByLabel('Code from your app (or a recovery code)').first().fill(codes[1]);
    await page.getByRole('button', { name: 'Get new codes' }).click();
    await expect(page.getByTestId('recovery-codes').locator('li')).toHaveCount(10);
    await expect(page.getByTestId('second-factor-status')).toContainText('10 recovery codes left');

    // The admin sees it and resets it: the developer is signed out.
    await admin.goto('/users');
    await admin.getByTestId('user-row').filter({ hasText: DEVELOPER.email }).getByRole('link').first().click();
    await hydrated(admin);
    await expect(admin.getByTestId('user-second-factor')).toContainText('Authenticator app since');
    await admin.getByRole('button', { name: 'Reset authenticator' }).click();
    await admin.getByRole('alertdialog').getByRole('button', { name: 'Reset', exact: true }).click();
    await expect(admin.getByTestId('user-second-factor')).toContainText('Not set up');
    await page.goto('/account');
    await expect(page).toHaveURL(/\/login/);
    await admin.goto('/audit?action=user.second_factor_remove');
    await expect(admin.getByTestId('audit-row').filter({ hasText: 'admin@example.com' }).first()).toBeVisible();
    await admin.goto('/audit?action=user.second_factor_enrol');
    await expect(admin.getByTestId('audit-row').filter({ hasText: 'dev@example.com' }).first()).toBeVisible();
  } finally {
    await setRequirement(admin, false);
  }
  expect(errors).toEqual([]);
});
