import { browser, ctx, shot, text, BASE, totp, load } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b); const p = await c.newPage();
await p.goto(BASE + '/login'); await p.fill('#email', 'admin@example.com'); await p.fill('#password', 'admin-password-123');
await p.click('button:has-text("Sign in")'); await p.waitForLoadState('networkidle');
console.log(new Date().toISOString(), 'pending at', p.url());
await new Promise(r => setTimeout(r, 10.5 * 60 * 1000));
await p.locator('input[name=code]').fill(totp(load('adminKey'))); await p.locator('button[type=submit]').first().click(); await p.waitForLoadState('networkidle'); await p.waitForTimeout(300);
console.log(new Date().toISOString(), 'after 10.5 min ->', p.url()); console.log(await text(p)); await shot(p, '31-admin-pending-expired');
await b.close();
