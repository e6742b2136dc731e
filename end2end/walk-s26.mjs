import { browser, ctx, shot, text, BASE, totp, load } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b); const p = await c.newPage();
await p.goto(BASE + '/login'); await p.fill('#email', 'sec@example.com'); await p.fill('#password', 'reviewer-password-456');
await p.click('button:has-text("Sign in")'); await p.waitForLoadState('networkidle');
for (let i = 1; i <= 11; i++) {
  await p.locator('input[name=code]').fill(String(100000 + i)); await p.locator('button[type=submit]').first().click(); await p.waitForLoadState('networkidle');
  const t = await text(p); console.log(i, p.url(), t.split('\n').filter(l => /not right|many|wait|try again|minutes/i.test(l)).slice(0,2));
}
await shot(p, '26-sec-throttled');
// right code now
await p.locator('input[name=code]').fill(totp(load('secKey'))); await p.locator('button[type=submit]').first().click(); await p.waitForLoadState('networkidle');
console.log('right code while throttled ->', p.url(), (await text(p)).split('\n').filter(l => /not right|many|wait|try|minutes/i.test(l)));
// fresh sign-in from another browser
const c2 = await ctx(b); const p2 = await c2.newPage();
await p2.goto(BASE + '/login'); await p2.fill('#email', 'sec@example.com'); await p2.fill('#password', 'reviewer-password-456');
await p2.click('button:has-text("Sign in")'); await p2.waitForLoadState('networkidle');
console.log('fresh sign-in ->', p2.url(), (await text(p2)).split('\n').filter(l => /many|wait|try|minutes/i.test(l)));
await p2.locator('input[name=code]').fill(load('secRecovery')[0]); await p2.locator('button[type=submit]').first().click(); await p2.waitForLoadState('networkidle');
console.log('recovery code while throttled ->', p2.url(), (await text(p2)).split('\n').filter(l => /not right|many|wait|try|minutes/i.test(l)));
await shot(p2, '26b-sec-throttled-recovery');
await b.close();
