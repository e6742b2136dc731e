// The device authorization grant (RFC 8628) with a client library nobody here wrote (panva's
// openid-client): discovery, device authorization, polling while a person approves in a
// browser (authorization_pending, then tokens), and the errors it surfaces: access_denied
// when the person refuses, slow_down when a device polls too fast, invalid_grant for a code
// that is not one. expired_token needs ten minutes to pass: the API tests cover it with a
// controlled clock.
import { test, expect, type Browser } from '@playwright/test';
import * as client from 'openid-client';
import { decodeJwt } from 'jose';
import { ADMIN, hydrated, login, registerResource } from './helpers';

/** A person, in a browser of their own, enters the code of `start` and answers. */
async function answer(browser: Browser, start: client.DeviceAuthorizationResponse, allow: boolean) {
  const person = await browser.newContext();
  const p = await person.newPage();
  await p.goto(start.verification_uri_complete!);
  await expect(p.getByLabel('Code shown on your device')).toHaveValue(start.user_code);
  await p.getByRole('button', { name: 'Continue' }).click();
  await p.getByLabel('Email').fill(ADMIN.email);
  await p.getByLabel('Password').fill(ADMIN.password);
  await p.getByRole('button', { name: 'Sign in' }).click();
  // The consent page shows the code again, with the warning against codes sent by others.
  await expect(p.getByTestId('consent-device-code')).toHaveText(start.user_code);
  await expect(p.getByTestId('consent-warning')).toContainText('shows exactly this code');
  await p.getByRole('button', { name: allow ? 'Allow' : 'Deny' }).click();
  await expect(p.getByTestId('device-done')).toContainText(allow ? 'is allowed' : 'was not allowed');
  await person.close();
}

test('openid-client signs a device in while a person approves in the browser', async ({ page, browser, baseURL, request }) => {
  test.setTimeout(90_000);
  const suffix = Date.now().toString(36);
  const audience = `https://tv-${suffix}.example.com/mcp`;
  await login(page, ADMIN);
  await registerResource(page, { id: `tv-${suffix}`, name: 'TV', uri: audience, scopes: 'tools:call' });

  // A public client that opts in to the device grant, in the console.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
  await hydrated(page);
  await page.getByRole('button', { name: 'New client' }).click();
  await page.getByLabel('Name').fill('TV command line');
  await page.getByLabel('client_id').fill(`tv-${suffix}`);
  await page.getByLabel('Authentication').selectOption('none');
  await page.getByLabel(/May sign people in on devices without a browser/).check();
  await page.getByRole('button', { name: 'Create client' }).click();
  await expect(page.getByTestId('issued-secret')).toContainText(`tv-${suffix}`);

  const config = await client.discovery(
    new URL(`${baseURL}/realms/default`),
    `tv-${suffix}`,
    undefined,
    client.None(),
    { execute: [client.allowInsecureRequests] },
  );
  expect(config.serverMetadata().device_authorization_endpoint).toBe(`${baseURL}/realms/default/device_authorization`);

  // Allowed: the library polls (authorization_pending) until the person has answered.
  const start = await client.initiateDeviceAuthorization(config, { scope: 'tools:call', resource: audience });
  expect(start.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
  expect(start.interval).toBe(5);
  const polling = client.pollDeviceAuthorizationGrant(config, start);
  await answer(browser, start, true);
  const tokens = await polling;
  const claims = decodeJwt(tokens.access_token);
  expect(claims.aud).toBe(audience);
  expect(claims.client_id).toBe(`tv-${suffix}`);
  expect(claims.scope).toBe('tools:call');
  expect(tokens.refresh_token).toBeTruthy();

  // Polling too fast: slow_down, and the interval the next answer asks for grows.
  const fast = await client.initiateDeviceAuthorization(config, { resource: audience });
  const poll = () => request.post('/realms/default/token', {
    form: { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', client_id: `tv-${suffix}`, device_code: fast.device_code },
  });
  expect((await (await poll()).json()).error).toBe('authorization_pending');
  const slow = await poll();
  expect(slow.status()).toBe(400);
  expect(await slow.json()).toMatchObject({ error: 'slow_down', error_description: expect.stringContaining('10 seconds') });

  // Refused: the library surfaces access_denied.
  const refused = await client.initiateDeviceAuthorization(config, { resource: audience });
  const denied = client.pollDeviceAuthorizationGrant(config, refused).catch((e) => e);
  await answer(browser, refused, false);
  const err = await denied;
  expect(err).toBeInstanceOf(client.ResponseBodyError);
  expect(err.error).toBe('access_denied');

  // A device code that is not one.
  const forged = await client
    .pollDeviceAuthorizationGrant(config, { ...start, device_code: 'pdc_not-a-code', interval: 1 })
    .catch((e) => e);
  expect(forged).toBeInstanceOf(client.ResponseBodyError);
  expect(forged.error).toBe('invalid_grant');
});
