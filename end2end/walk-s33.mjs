import { browser, ctx, shot, text, BASE, totp, load, save } from './walk-lib.mjs';
const b = await browser();
// sec: pending, sign in as someone else, then direct GET and submit code
const c = await ctx(b); const p = await c.newPage();
await p.goto(BASE + '/login'); await p.fill('#email', 'sec@example.com'); await p.fill('#password', 'reviewer-password-456');
await p.click('button:has-text("Sign in")'); await p.waitForLoadState('networkidle'); console.log('sec pending ->', p.url());
await p.getByRole('link', { name: 'Sign in as someone else' }).click(); await p.waitForLoadState('networkidle'); console.log('someone else ->', p.url());
await p.goto(BASE + '/login/second-factor'); await p.waitForLoadState('networkidle'); console.log('direct GET ->', p.url(), (await text(p)).split('\n').slice(4, 6));
if (await p.locator('input[name=code]').count()) {
  await p.locator('input[name=code]').fill(totp(load('secKey'))); await p.locator('button[type=submit]').first().click(); await p.waitForLoadState('networkidle');
  console.log('after code ->', p.url());
}
await shot(p, '33-after-someone-else');
await b.close();
