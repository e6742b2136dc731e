// Console single sign-on against a real OpenID Connect provider (node-oidc-provider, started
// here with a groups claim, three users and a second client): an admin adds the provider and
// tests the connection; people sign in with it and get the role their groups map to; someone
// whose groups map to nothing reads a clear refusal; a group change changes the role at the next
// sign-in, and losing every mapped group refuses the sign-in and ends the account's other
// sessions; a callback without the browser's pending sign-in is refused; disabling the provider
// takes its button away.
import { test, expect, type Browser, type Page } from '@playwright/test';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { ADMIN, DEVELOPER, hydrated, login, trackErrors } from './helpers';

type Person = { email: string; name: string; groups: string[] };
const people: Record<string, Person> = {
  alice: { email: 'alice@corp.example', name: 'Alice Lastname-With-A-Rather-Long-Name', groups: ['platform-admins', 'everyone'] },
  bob: { email: 'bob@corp.example', name: 'Bob Builder', groups: ['engineering', 'everyone'] },
  eve: { email: 'eve@corp.example', name: 'Eve Sales', groups: ['sales'] },
  // The developer who already has a console account (with a password) here.
  devon: { email: 'dev@example.com', name: 'Dev Eloper', groups: ['engineering'] },
};

const CLIENT_ID = 'portcullis-console';
const CLIENT_SECRET = 'console-client-secret-0123456789';

let idp: Server | undefined;
let issuer = '';

/** Starts node-oidc-provider with the console's redirect URI registered. */
async function startIdp(redirectUri: string): Promise<void> {
  const { default: Provider } = await import('oidc-provider');
  const port = 3190;
  issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [redirectUri],
        post_logout_redirect_uris: [new URL('/login', redirectUri).toString()],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
      // Another relying party of the same IdP: its tokens are not Portcullis's.
      { client_id: 'other-app', client_secret: 'other-app-secret-0123456789', redirect_uris: ['http://127.0.0.1:9/cb'] },
    ],
    claims: { email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    cookies: { keys: ['sso-spec-cookie-key'] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx: unknown, id: string) {
      const who = people[id];
      if (!who) return undefined;
      return {
        accountId: id,
        async claims() {
          return { sub: id, email: who.email, email_verified: true, name: who.name, groups: who.groups };
        },
      };
    },
  });
  await new Promise<void>((resolve) => {
    idp = provider.listen(port, () => resolve());
  });
  expect((idp!.address() as AddressInfo).port).toBe(port);
}

test.afterAll(async () => {
  await new Promise((resolve) => (idp ? idp.close(resolve) : resolve(undefined)));
});

/** Signs in at the console through the provider as `who`, in a fresh browser. */
async function ssoSignIn(browser: Browser, who: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByRole('link', { name: 'Sign in with Acme Identity' }).click();
  // node-oidc-provider's development sign-in and consent pages.
  await page.locator('input[name="login"]').fill(who);
  await page.locator('input[name="password"]').fill('any-password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  const consent = page.getByRole('button', { name: 'Continue' });
  if (await consent.isVisible().catch(() => false)) await consent.click();
  await page.waitForURL((u) => u.origin !== issuer);
  return page;
}

test('people sign in to the console with the company IdP and get the role their groups map to', async ({ page, browser }) => {
  test.setTimeout(90_000);
  const errors = trackErrors(page);
  await login(page, ADMIN);
  // The admin adds the provider on the Single sign-on page; a bad issuer is shown on its field.
  await page.goto('/single-sign-on');
  await hydrated(page);
  await page.getByRole('button', { name: 'Add a provider' }).click();
  const form = page.locator('#new-sso');
  await form.getByLabel('Name', { exact: true }).fill('Acme Identity');
  await form.getByLabel('Issuer', { exact: true }).fill('ftp://127.0.0.1:3190');
  await form.getByLabel('Client ID', { exact: true }).fill(CLIENT_ID);
  await form.getByLabel('Client secret', { exact: true }).fill(CLIENT_SECRET);
  await form.getByLabel('Scopes', { exact: true }).fill('openid email profile groups');
  await form.getByLabel('Admin', { exact: true }).fill('platform-admins');
  await form.getByLabel('Developer', { exact: true }).fill('engineering');
  await form.getByRole('button', { name: 'Add provider' }).click();
  await expect(form.getByText('The issuer must be an https URL.')).toBeVisible();
  await form.getByLabel('Issuer', { exact: true }).fill('http://127.0.0.1:3190');
  await form.getByRole('button', { name: 'Add provider' }).click();
  const card = page.getByTestId('sso-provider').filter({ hasText: 'Acme Identity' });
  await expect(card).toBeVisible();
  await expect(card).toContainText('Stored (encrypted)');
  expect(await page.content()).not.toContain(CLIENT_SECRET);
  const redirectUri = (await card.innerText()).match(/http:\/\/\S+\/login\/sso\/sso_[0-9a-f]+\/callback/)?.[0];
  expect(redirectUri).toBeTruthy();
  const id = redirectUri!.split('/')[5];
  await startIdp(redirectUri!);

  // Test connection runs discovery now and shows what it found.
  await card.getByRole('button', { name: 'Test connection' }).click();
  await expect(card.getByTestId('sso-test')).toContainText('Discovery works');
  await expect(card.getByTestId('sso-test')).toContainText(`${issuer}/me`);

  // Alice's group maps to admin: her account is created and she manages users.
  const alice = await ssoSignIn(browser, 'alice');
  await expect(alice).toHaveURL(/\/$/);
  await alice.goto('/users');
  await expect(alice.getByRole('heading', { name: 'Console users', exact: true })).toBeVisible();
  const aliceRow = alice.getByTestId('user-row').filter({ hasText: 'alice@corp.example' });
  await expect(aliceRow.getByTestId('user-sso')).toHaveText('Signs in with Acme Identity');
  await expect(aliceRow).toContainText('Active');

  // Bob is a developer: the users page is not his.
  const bob = await ssoSignIn(browser, 'bob');
  await expect(bob).toHaveURL(/\/$/);
  await bob.goto('/users');
  await expect(bob.getByRole('heading', { name: 'Console users', exact: true })).toHaveCount(0);

  // Signing out of the console signs out at the provider too (RP-Initiated Logout), which sends
  // the browser back to the sign-in page.
  await bob.goto('/');
  await hydrated(bob);
  await bob.getByTestId('user-menu').click();
  await bob.getByRole('button', { name: 'Sign out' }).click();
  await expect(bob).toHaveURL(new RegExp(`^${issuer}/session/end`));
  await bob.getByRole('button', { name: /Yes, sign me out/ }).click();
  await expect(bob).toHaveURL(/\/login$/);

  // Eve's groups map to nothing: a clear refusal, and no account.
  const eve = await ssoSignIn(browser, 'eve');
  await expect(eve).toHaveURL(/\/login\?error=sso_no_role/);
  await expect(eve.getByTestId('login-error')).toContainText('none of your groups gives access');

  // An existing password account is never taken over by its email: the IdP's Devon is told to
  // sign in with the password and connect the provider from the Account page, which links it.
  const devon = await ssoSignIn(browser, 'devon');
  await expect(devon).toHaveURL(/\/login\?error=sso_email_taken/);
  await expect(devon.getByTestId('login-error')).toContainText('then connect the provider on your Account page');
  const dev = await (await browser.newContext()).newPage();
  await login(dev, DEVELOPER);
  await dev.goto('/account');
  await dev.getByRole('link', { name: 'Connect Acme Identity' }).click();
  await dev.locator('input[name="login"]').fill('devon');
  await dev.locator('input[name="password"]').fill('any-password');
  await dev.getByRole('button', { name: 'Sign-in' }).click();
  const devConsent = dev.getByRole('button', { name: 'Continue' });
  if (await devConsent.isVisible().catch(() => false)) await devConsent.click();
  await expect(dev).toHaveURL(/\/account$/);
  await expect(dev.getByTestId('my-sso')).toContainText('You sign in with Acme Identity');
  // From then on Devon signs in with the provider.
  const devonAgain = await ssoSignIn(browser, 'devon');
  await expect(devonAgain).toHaveURL(/\/$/);

  // Bob joins the admins' group: admin at his next sign-in (audited as a role change).
  people.bob.groups = ['platform-admins'];
  const bobAgain = await ssoSignIn(browser, 'bob');
  await bobAgain.goto('/users');
  await expect(bobAgain.getByRole('heading', { name: 'Console users', exact: true })).toBeVisible();

  // Bob leaves every mapped group: refused, and his other sessions end.
  people.bob.groups = ['everyone'];
  const bobLast = await ssoSignIn(browser, 'bob');
  await expect(bobLast).toHaveURL(/\/login\?error=sso_no_role/);
  await bobAgain.goto('/users');
  await expect(bobAgain).toHaveURL(/\/login/);

  // The audit log has all of it.
  await page.goto('/audit?actor=bob%40corp.example');
  const rows = page.getByTestId('audit-row');
  await expect(rows.filter({ hasText: 'user.role_change' }).first()).toBeVisible();
  await expect(rows.filter({ hasText: 'user.create' }).first()).toBeVisible();
  await expect(rows.filter({ hasText: 'session.login' }).filter({ hasText: 'no group maps to a role' }).first()).toBeVisible();
  await page.goto('/audit?action=user.sso_link');
  await expect(page.getByTestId('audit-row').filter({ hasText: 'dev@example.com' }).first()).toBeVisible();

  // A callback the browser did not start (no pending sign-in) signs nobody in.
  const stray = await browser.newContext();
  const strayPage = await stray.newPage();
  await strayPage.goto(`/login/sso/${id}/callback?code=abc&state=xyz`);
  await expect(strayPage).toHaveURL(/\/login\?error=sso_expired/);

  // Password sign-in off for all but break-glass admins: first a break-glass admin is needed.
  await page.goto('/single-sign-on');
  await hydrated(page);
  const passwords = page.getByTestId('password-sign-in');
  await passwords.getByRole('button', { name: 'Turn off' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Turn off' }).click();
  await expect(page.getByText('Mark an admin who has a password as break-glass first')).toBeVisible();
  await page.goto('/users');
  await hydrated(page);
  await page.getByRole('link', { name: 'Ada Admin' }).click();
  await page.getByTestId('break-glass').getByRole('button', { name: 'Make break-glass' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Make break-glass' }).click();
  await expect(page.getByTestId('break-glass')).toContainText('Yes');
  const adminPage = page.url();
  await page.goto('/single-sign-on');
  await hydrated(page);
  await passwords.getByRole('button', { name: 'Turn off' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Turn off' }).click();
  await expect(passwords).toContainText('Break-glass admins only');
  // The developer's right password is refused; the break-glass admin's works.
  const signIn = async (who: { email: string; password: string }) => {
    const context = await browser.newContext();
    const p = await context.newPage();
    await p.goto('/login');
    await expect(p.getByRole('link', { name: 'Sign in with Acme Identity' })).toBeVisible();
    await p.getByText('Break-glass sign-in with a password (admins only)').click();
    await p.getByLabel('Email').fill(who.email);
    await p.getByLabel('Password').fill(who.password);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    return p;
  };
  const developer = await signIn(DEVELOPER);
  await expect(developer).toHaveURL(/\/login\?error=password_off/);
  await expect(developer.getByTestId('login-error')).toContainText('Password sign-in is turned off');
  const breakGlass = await signIn(ADMIN);
  await expect(breakGlass).toHaveURL(/\/$/);
  // The last break-glass admin keeps the mark while password sign-in is off.
  await page.goto(adminPage);
  await hydrated(page);
  await page.getByTestId('break-glass').getByRole('button', { name: 'Remove break-glass' }).click();
  await expect(page.getByText('this would leave none')).toBeVisible();
  await page.goto('/single-sign-on');
  await hydrated(page);
  await passwords.getByRole('button', { name: 'Turn on for everyone' }).click();
  await expect(passwords).toContainText('Everyone');

  // Disabled: the button is gone and Alice's session ended.
  await page.goto('/single-sign-on');
  await hydrated(page);
  await card.getByRole('button', { name: 'Disable' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Disable' }).click();
  await expect(card.getByText('Disabled', { exact: true })).toBeVisible();
  await alice.goto('/users');
  await expect(alice).toHaveURL(/\/login/);
  await expect(alice.getByRole('link', { name: 'Sign in with Acme Identity' })).toHaveCount(0);
  expect(errors).toEqual([]);
});
