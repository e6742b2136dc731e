// A realm's people from the company directory (brokering), against a real OpenID Connect
// provider (node-oidc-provider, started here with a groups claim and two people): an admin adds
// the provider on the realm's Sign-in providers page with a group mapping, tests the connection;
// Grace signs in to `portcullis-cli` (device code) through the provider's button, is created
// just in time, and her group's unit puts the registry's server in her pulled release without
// naming any ring or unit; Ada, who already has a password here, is linked only after typing
// it; People shows where they come from; disabling the provider shows on its people.
import { test, expect, type APIRequestContext, type Browser } from '@playwright/test';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { ADMIN, check, hydrated, login, registerResource, trackErrors } from './helpers';

const CLI = path.resolve(__dirname, '../../target/debug/portcullis-cli');
const CLIENT_ID = 'portcullis-people';
const CLIENT_SECRET = 'people-client-secret-0123456789';
const PORT = 3191;

type Person = { email: string; name: string; groups: string[] };
const suffix = Date.now().toString(36);
const people: Record<string, Person> = {
  grace: { email: `grace-${suffix}@corp.example`, name: 'Grace Hopper', groups: ['engineering', 'everyone'] },
  // Already a person of the realm, with a password.
  ada: { email: `ada-${suffix}@corp.example`, name: 'Ada Lovelace', groups: ['sales'] },
};

let idp: Server | undefined;
const issuer = `http://127.0.0.1:${PORT}`;

async function startIdp(redirectUri: string): Promise<void> {
  const { default: Provider } = await import('oidc-provider');
  const provider = new Provider(issuer, {
    clients: [{
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    }],
    claims: { email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    cookies: { keys: ['brokering-spec-cookie-key'] },
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
  await new Promise<void>((resolve) => { idp = provider.listen(PORT, () => resolve()); });
  expect((idp!.address() as AddressInfo).port).toBe(PORT);
}

test.afterAll(async () => {
  await new Promise((resolve) => (idp ? idp.close(resolve) : resolve(undefined)));
});

async function call(api: APIRequestContext, baseURL: string, fn: string, form: Record<string, string>) {
  const res = await api.post(`/api/${fn}`, { form, headers: { origin: baseURL } });
  expect(res.ok(), `${fn}: ${await res.text()}`).toBeTruthy();
  return res.json();
}

/** `portcullis-cli login --device` as `who` at the IdP; `password` for the link page. */
async function cliLogin(browser: Browser, baseURL: string, realm: string, who: string, password?: string, problems: string[] = []) {
  const home = mkdtempSync(path.join(tmpdir(), 'portcullis-brokering-'));
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, 'config'),
    XDG_CACHE_HOME: path.join(home, 'cache'),
    PORTCULLIS_CLI_CREDENTIALS: 'file',
  };
  const child = spawn(CLI, ['login', '--server', baseURL, '--realm', realm, '--device'], { env });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  await expect.poll(() => stderr, { timeout: 15_000 }).toMatch(/enter the code [A-Z]{4}-[A-Z]{4}/);
  const code = stderr.match(/enter the code ([A-Z]{4}-[A-Z]{4})/)![1];
  const verification = stderr.match(/open (\S+) and enter/)![1];
  // Ada on a phone: the sign-in and link pages are checked at 390 px.
  const context = await browser.newContext(password ? { viewport: { width: 390, height: 844 } } : {});
  const p = await context.newPage();
  await p.goto(verification);
  await p.getByLabel('Code shown on your device').fill(code);
  await p.getByRole('button', { name: 'Continue' }).click();
  if (password) problems.push(...await check(p, 'realm-sign-in-with-provider-390'));
  await p.getByRole('button', { name: 'Sign in with Acme Directory' }).click();
  // node-oidc-provider's development sign-in and consent pages.
  await p.locator('input[name="login"]').fill(who);
  await p.locator('input[name="password"]').fill('any-password');
  await p.getByRole('button', { name: 'Sign-in' }).click();
  // The IdP asks for consent the first time: continue there, then back to Portcullis.
  const consent = p.getByRole('button', { name: 'Continue' });
  const next = await Promise.race([
    consent.waitFor({ timeout: 15_000 }).then(() => 'consent'),
    p.waitForURL((u) => u.origin !== issuer, { timeout: 15_000 }).then(() => 'back'),
  ]);
  if (next === 'consent') await consent.click();
  await p.waitForURL((u) => u.origin !== issuer);
  if (password) {
    await expect(p.getByRole('heading', { name: 'Connect Acme Directory to your account' })).toBeVisible();
    await p.getByLabel('Password').fill('not-the-password');
    await p.getByRole('button', { name: 'Connect and continue' }).click();
    await expect(p.getByTestId('login-error')).toHaveText('That password is not right.');
    problems.push(...await check(p, 'realm-link-390'));
    await p.getByLabel('Password').fill(password);
    await p.getByRole('button', { name: 'Connect and continue' }).click();
  }
  await expect(p.getByTestId('client-name')).toHaveText('Portcullis CLI');
  await p.getByRole('button', { name: 'Allow' }).click();
  await expect(p.getByTestId('device-done')).toBeVisible();
  await context.close();
  expect(await exited, stderr).toBe(0);
  return (...args: string[]) => spawnSync(CLI, args, { env, encoding: 'utf8', timeout: 30_000 });
}

test('realm people sign in through the company IdP and their groups decide which servers reach them', async ({ page, browser, baseURL }) => {
  test.setTimeout(150_000);
  const errors = trackErrors(page);
  const realm = `people-${suffix}`;
  await login(page, ADMIN);
  const api = page.request;
  await call(api, baseURL!, 'realms/create', { name: realm, display_name: 'People' });
  await call(api, baseURL!, 'session/realm', { name: realm });
  const ADA_PASSWORD = 'ada-long-enough-password';
  await call(api, baseURL!, 'people/create', { email: people.ada.email, display_name: 'Ada', roles: '', password: ADA_PASSWORD, confirm: ADA_PASSWORD });
  // The registry gives the mail server (Portcullis authorizes it) to unit "platform" only.
  const mail = `https://mail-${suffix}.example.com/mcp`;
  await page.goto('/');
  await registerResource(page, { id: `mail-${suffix}`, name: 'Mail', uri: mail, scopes: 'tools:call' });
  await call(api, baseURL!, 'registry/settings', { api_access: 'bearer' });
  let revision: number = (await call(api, baseURL!, 'registry/get', {})).revision;
  revision = await call(api, baseURL!, 'registry/groups', { revision: String(revision), mode: 'allowlist', rings: 'everyone', units: 'platform' });
  revision = (await call(api, baseURL!, 'registry/save-server', {
    revision: String(revision),
    replacing: '',
    'form[id]': `mail-${suffix}`,
    'form[title]': 'Mail',
    'form[transport]': 'remote',
    'form[auth_mode]': 'portcullis',
    'form[auth_scopes]': 'tools:call',
    'form[url]': mail,
    'form[units][0]': 'platform',
  })).revision;
  await call(api, baseURL!, 'registry/publish', { revision: String(revision) });

  // The admin adds the provider on the realm's Sign-in providers page; a mapping naming a unit
  // the registry lacks is refused on its field.
  await page.goto('/sign-in-providers');
  await hydrated(page);
  await page.getByRole('button', { name: 'Add a provider' }).click();
  const form = page.locator('#new-realm-sso');
  await form.getByLabel('Name', { exact: true }).fill('Acme Directory');
  await form.getByLabel('Issuer', { exact: true }).fill(issuer);
  await form.getByLabel('Client ID', { exact: true }).fill(CLIENT_ID);
  await form.getByLabel('Client secret', { exact: true }).fill(CLIENT_SECRET);
  await form.getByLabel('Scopes', { exact: true }).fill('openid email profile groups');
  await form.getByLabel('Group mapping', { exact: true }).fill('engineering -> unit:platfrom');
  await form.getByRole('button', { name: 'Add provider' }).click();
  await expect(form.getByText('The registry has no unit platfrom')).toBeVisible();
  await form.getByLabel('Group mapping', { exact: true }).fill('engineering -> unit:platform\n* -> role:mcp-user');
  await form.getByRole('button', { name: 'Add provider' }).click();
  const card = page.getByTestId('realm-sso-provider').filter({ hasText: 'Acme Directory' });
  await expect(card).toBeVisible();
  await expect(card.getByTestId('realm-sso-mapping')).toContainText('engineering -> unit:platform');
  expect(await page.content()).not.toContain(CLIENT_SECRET);
  const redirectUri = (await card.innerText()).match(/http:\/\/\S+\/realms\/people-\w+\/upstream\/sso_[0-9a-f]+\/callback/)?.[0];
  expect(redirectUri).toBeTruthy();
  await startIdp(redirectUri!);
  await card.getByRole('button', { name: 'Test connection' }).click();
  await expect(card.getByTestId('realm-sso-test')).toContainText('Discovery works');

  // Grace: created at her first sign-in; her group's unit gives her the mail server.
  const grace = await cliLogin(browser, baseURL!, realm, 'grace');
  const pulled = grace('pull', '--server', baseURL!, '--realm', realm, '--json');
  expect(pulled.status, pulled.stderr).toBe(0);
  const summary = JSON.parse(pulled.stdout);
  expect(summary.units).toEqual(['platform']);
  expect(summary.servers).toEqual([`mail-${suffix}`]);

  // Ada has a password here: the provider's email alone links nothing; her password does.
  const problems: string[] = [];
  await cliLogin(browser, baseURL!, realm, 'ada', ADA_PASSWORD, problems);
  expect(problems).toEqual([]);

  // People shows where they come from, and the audit log has the story.
  await page.goto('/people');
  await hydrated(page);
  const graceRow = page.getByTestId('person-row').filter({ hasText: people.grace.email });
  await expect(graceRow.getByTestId('person-provider')).toHaveText('From Acme Directory');
  await expect(graceRow).toContainText('mcp-user');
  await expect(page.getByTestId('person-row').filter({ hasText: people.ada.email }).getByTestId('person-provider')).toHaveText('From Acme Directory');
  // Her page says where she comes from and what the mapping gave her.
  await graceRow.getByRole('link').click();
  await expect(page.getByTestId('person-provider').first()).toContainText('Acme Directory');
  await expect(page.getByTestId('person-groups')).toHaveText('unit platform');
  await page.goto('/audit?action=person.link');
  await expect(page.getByTestId('audit-row').filter({ hasText: people.ada.email }).first()).toBeVisible();

  // Disabling the provider: its people are blocked, and People says so.
  await page.goto('/sign-in-providers');
  await hydrated(page);
  await card.getByRole('button', { name: 'Disable' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Disable' }).click();
  await expect(card).toContainText('Disabled');
  await page.goto('/people');
  await expect(page.getByTestId('person-row').filter({ hasText: people.grace.email })).toContainText('Provider disabled');
  expect(grace('token', '--resource', mail).status, 'no new token for a blocked person').not.toBe(0);
  expect(errors).toEqual([]);
});
