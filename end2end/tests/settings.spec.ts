import { test, expect, Page } from '@playwright/test';
import { ADMIN, switchRealm, createClient, createRealm, grantAccess, hydrated, login, registerResource, trackErrors } from './helpers';

/** Creates a realm and makes it the console's current realm. */
async function workInNewRealm(page: Page, name: string, display: string) {
  await createRealm(page, name, display);
  await switchRealm(page, name);
  await expect(page.locator('header')).toContainText(display);
  await hydrated(page);
}

test('realm settings set the default token lifetime that resources follow unless they set their own', async ({ page }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  await workInNewRealm(page, `life-${suffix}`, 'Lifetimes');
  // List rows are divided by a line above every row but the first (none after the last).
  await page.goto('/realms');
  const rows = page.getByTestId('realm-row');
  const border = (i: number, side: 'Top' | 'Bottom') => rows.nth(i).evaluate((el, s) => getComputedStyle(el)[`border${s}Width` as 'borderTopWidth'], side);
  expect(await border(0, 'Top')).toBe('0px');
  expect(await border(1, 'Top')).toBe('1px');
  expect(await border((await rows.count()) - 1, 'Bottom')).toBe('0px');
  // Stacked items have one gap between each two (none doubled, none missing before the last).
  await page.goto('/account');
  await hydrated(page);
  const gaps = await page.locator('#password-form').evaluate((form) => {
    const kids = [...form.children].filter((k) => getComputedStyle(k).display !== 'none');
    return kids.slice(1).map((k, i) => Math.round(k.getBoundingClientRect().top - kids[i].getBoundingClientRect().bottom));
  });
  expect(gaps.length).toBeGreaterThan(1);
  expect(new Set(gaps)).toEqual(new Set([16]));
  await registerResource(page, { id: 'life-mcp', name: 'Life MCP', uri: 'https://life.example.com/mcp', scopes: 'tools:call tools:read' });
  await page.goto('/resources');
  await hydrated(page);
  await expect(page.getByTestId('resource-row').filter({ hasText: 'Life MCP' })).toContainText('300 s (realm default)');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Realm settings' }).click();
  await expect(page.getByRole('heading', { name: 'Lifetimes', level: 1 })).toBeVisible();
  await expect(page.getByTestId('realm-lifetime')).toHaveText('300 s');
  await page.getByRole('button', { name: 'Edit' }).first().click();
  const lifetime = page.getByLabel('Access-token lifetime (s)');
  await lifetime.fill('10');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(lifetime).toHaveAttribute('aria-invalid', 'true');
  await expect(lifetime).toHaveAccessibleDescription(/from 30 to 3600/);
  await expect(lifetime).toBeFocused();
  // Editing clears the stale error.
  await lifetime.fill('900');
  await expect(lifetime).not.toHaveAttribute('aria-invalid', 'true');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('toast').filter({ hasText: `Realm life-${suffix} saved.` })).toBeVisible();
  await expect(page.getByTestId('realm-lifetime')).toHaveText('900 s');
  await expect(page.getByTestId('history-row').first()).toContainText('realm.update');
  // Refresh tokens: idle and absolute lifetimes in days; idle may not outlast absolute.
  await expect(page.getByTestId('realm-refresh')).toHaveText('Expire after 14 days unused, 90 days at most');
  await page.getByRole('button', { name: 'Edit' }).first().click();
  const idle = page.getByLabel('Refresh token idle lifetime (days)');
  await idle.fill('30');
  await page.getByLabel('Refresh token absolute lifetime (days)').fill('7');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(idle).toHaveAttribute('aria-invalid', 'true');
  await expect(idle).toHaveAccessibleDescription(/at most the absolute lifetime/);
  await idle.fill('1');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('realm-refresh')).toHaveText('Expire after 1 day unused, 7 days at most');

  // The resource follows the realm, until it sets its own.
  await page.goto('/resources/life-mcp');
  await hydrated(page);
  await expect(page.getByTestId('resource-lifetime')).toContainText('900 s (realm default)');
  await page.getByRole('button', { name: 'Edit' }).first().click();
  const own = page.getByLabel('Token lifetime (s)');
  await expect(own).toHaveValue('');
  await expect(own).toHaveAttribute('placeholder', '900 (realm default)');
  await own.fill('120');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('resource-lifetime')).toContainText('120 s');
  await expect(page.getByTestId('resource-lifetime')).not.toContainText('realm default');
  expect(errors).toEqual([]);
});

test('client scopes and agent roles are picked from the realm resources, and unknown ones are warned about', async ({ page }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  await workInNewRealm(page, `pick-${suffix}`, 'Picking');
  await registerResource(page, { id: 'pick-mcp', name: 'Pick MCP', uri: 'https://pick.example.com/mcp', scopes: 'files:read files:write' });

  await page.goto('/clients');
  await hydrated(page);
  await page.getByRole('button', { name: 'New client' }).click();
  const scopes = page.getByLabel('Registered scopes');
  const picks = page.getByRole('group', { name: /Scopes this realm's resources accept/ });
  await picks.getByRole('button', { name: 'files:read' }).click();
  await expect(scopes).toHaveValue('files:read');
  await expect(picks.getByRole('button', { name: 'files:read' })).toHaveAttribute('aria-pressed', 'true');
  await scopes.fill('files:read files:delete');
  await expect(page.getByTestId('unknown-scopes')).toHaveText('No resource of this realm accepts files:delete: tokens never carry it.');
  // Selecting again removes it; a known set needs no warning.
  await picks.getByRole('button', { name: 'files:read' }).click();
  await expect(scopes).toHaveValue('files:delete');
  await scopes.fill('files:write');
  await expect(page.getByTestId('unknown-scopes')).toHaveCount(0);

  // Agent roles: capability roles (mcp, mcp:…) are not scopes and are not warned about.
  await page.goto('/agents');
  await hydrated(page);
  await page.getByRole('button', { name: 'New agent' }).first().click();
  const roles = page.getByLabel('Roles');
  await roles.fill('mcp files:write');
  await expect(page.getByRole('group', { name: /Scopes this realm's resources accept/ })).toBeVisible();
  await expect(page.getByTestId('unknown-scopes')).toHaveCount(0);
  await roles.fill('mcp files:purge');
  await expect(page.getByTestId('unknown-scopes')).toContainText('files:purge');
  await expect(page.getByTestId('unknown-scopes')).not.toContainText('mcp');
  expect(errors).toEqual([]);
});

test('a realm name the rules refuse never opens the rename dialog', async ({ page }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  await createRealm(page, `pat-${suffix}`, 'Pattern');
  await page.getByRole('link', { name: 'Pattern' }).click();
  await hydrated(page);
  await page.getByRole('button', { name: 'Edit' }).first().click();
  const name = page.getByLabel('Name', { exact: true });
  await name.fill('-bad-');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  expect(await name.evaluate((el: HTMLInputElement) => el.validity.patternMismatch)).toBe(true);
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('a resource is registered with the keyboard alone and opens on its page', async ({ page }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  await page.goto('/resources');
  await hydrated(page);
  const tabTo = async (matches: () => Promise<boolean>, what: string) => {
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      if (await matches()) return;
    }
    throw new Error(`Tab never reached ${what}`);
  };
  const focused = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText?.trim() ?? '');
  await tabTo(async () => (await focused()) === 'New resource', 'New resource');
  await page.keyboard.press('Enter');
  // Focus is in the form's first field; each field is one Tab further.
  await expect(page.getByLabel('Id')).toBeFocused();
  await page.keyboard.type(`kb-${suffix}`);
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Name')).toBeFocused();
  await page.keyboard.type('Keyboard MCP');
  await page.keyboard.press('Tab');
  await page.keyboard.type(`https://kb-${suffix}.example.com/mcp`);
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Accepted scopes')).toBeFocused();
  await page.keyboard.type('tools:call');
  // Enter in a text field submits the form.
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('toast').filter({ hasText: 'Resource Keyboard MCP registered.' })).toBeVisible();
  // It opens on its own page.
  await expect(page).toHaveURL(new RegExp(`/resources/kb-${suffix}$`));
  await expect(page.getByRole('heading', { name: 'Keyboard MCP', level: 1 })).toBeVisible();
  expect(errors).toEqual([]);
});

test('narrowing a grant, granting a client twice and changing an audience each ask or refuse first', async ({ page }) => {
  const errors = trackErrors(page);
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  await workInNewRealm(page, `ask-${suffix}`, 'Asking');
  await registerResource(page, { id: 'ask-mcp', name: 'Ask MCP', uri: 'https://ask.example.com/mcp', scopes: 'files:read files:write' });
  await createClient(page, { clientId: `asker-${suffix}`, name: 'Asker', scope: 'files:read' });
  await grantAccess(page, `asker-${suffix}`, 'Ask MCP');

  // On the client page: unticking a granted scope asks first, naming what is lost.
  const row = page.getByTestId('access-row').filter({ hasText: 'Ask MCP' });
  await row.getByRole('button', { name: 'Change scopes' }).click();
  await row.getByRole('checkbox', { name: 'files:write' }).uncheck();
  await row.getByRole('button', { name: 'Save scopes' }).click();
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toHaveAccessibleName(`Narrow asker-${suffix}'s access to Ask MCP?`);
  await expect(dialog).toContainText('It loses files:write.');
  await dialog.getByRole('button', { name: 'Narrow access' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'with files:read.' })).toBeVisible();

  // On the resource page, "Grant a client" refuses a client that has access already.
  await page.goto('/resources/ask-mcp');
  await hydrated(page);
  const picker = page.getByRole('combobox', { name: 'Client' });
  await picker.fill('asker');
  await page.getByRole('option', { name: new RegExp(`asker-${suffix}`) }).click();
  await page.getByRole('group', { name: 'Scopes to grant' }).getByRole('checkbox', { name: 'files:write' }).check();
  await page.getByRole('button', { name: 'Grant access' }).click();
  await expect(page.getByTestId('resource-clients').getByRole('alert')).toContainText('already has access to Ask MCP with files:read');
  await expect(page.getByTestId('grant-row').filter({ hasText: `asker-${suffix}` })).not.toContainText('files:write');

  // Changing the audience shows the old and new one first.
  await page.getByRole('button', { name: 'Edit' }).first().click();
  await page.getByLabel('Resource URI').fill('https://ask-v2.example.com/mcp');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const change = page.getByRole('alertdialog');
  await expect(change).toHaveAccessibleName('Change the audience of Ask MCP?');
  await expect(change.getByTestId('audience-change')).toContainText('https://ask.example.com/mcp');
  await expect(change.getByTestId('audience-change')).toContainText('https://ask-v2.example.com/mcp');
  await change.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('resource-detail')).toHaveCount(0); // still editing, nothing saved
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Change audience' }).click();
  await expect(page.getByTestId('resource-detail')).toContainText('https://ask-v2.example.com/mcp');
  // Saving other settings needs no confirmation.
  await page.getByRole('button', { name: 'Edit' }).first().click();
  await page.getByLabel('Name').fill('Ask MCP v2');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Ask MCP v2', level: 1 })).toBeVisible();
  expect(errors).toEqual([]);
});

test('the realm picker switches only when asked, and a tab left on the old realm acts nowhere', async ({ page, context }) => {
  await login(page, ADMIN);
  const suffix = Date.now().toString(36);
  const realm = `tab-${suffix}`;
  await createRealm(page, realm, 'Second tab');
  await page.goto('/resources');
  await hydrated(page);
  const header = page.locator('header');
  const shown = (await header.innerText()).trim();

  // Arrow keys move through the realms without leaving the page (WCAG 3.2.2); Switch switches.
  const picker = page.getByTestId('realm-switcher');
  const switchButton = page.getByRole('button', { name: 'Switch realm' });
  await expect(switchButton).toBeDisabled();
  await picker.selectOption(realm);
  await expect(page).toHaveURL(/\/resources$/);
  await expect(header).not.toContainText('Second tab');
  await expect(switchButton).toBeEnabled();
  await picker.selectOption('default');
  await expect(switchButton).toBeDisabled();

  // A second tab switches the shared session; the first still shows the old realm.
  const other = await context.newPage();
  await other.goto('/');
  await hydrated(other);
  await switchRealm(other, realm);
  await expect(other.locator('header')).toContainText('Second tab');
  expect((await header.innerText()).trim()).toBe(shown);

  // The first tab's next call is refused with both names, not carried out in the other realm.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'switched to realm' }).first()).toContainText(`“${realm}”`);

  // Reloading shows the session's realm, and work goes on there.
  await page.reload();
  await hydrated(page);
  await expect(header).toContainText('Second tab');
  await expect(page.getByRole('heading', { name: 'Clients' })).toBeVisible();
});
