import { browser, ctx, shot, text, BASE, totp, load } from './walk-lib.mjs';
const b = await browser();
// pending sign-in for sec, then password change elsewhere, then submit code
const cA = await ctx(b, { width: 390, scheme: 'light' }); const pA = await cA.newPage();
await pA.goto(BASE + '/login'); await pA.fill('#email', 'sec@example.com'); await pA.fill('#password', 'reviewer-password-123');
await pA.click('button:has-text("Sign in")'); await pA.waitForLoadState('networkidle'); await pA.waitForTimeout(300);
console.log('A ->', pA.url()); console.log(await text(pA)); await shot(pA, '30-sec-challenge-390-light');
const cB = await ctx(b, { state: '/tmp/walk/sec-state.json' }); const pB = await cB.newPage();
await pB.goto(BASE + '/account'); await pB.waitForLoadState('networkidle'); console.log('B ->', pB.url());
await pB.fill('#current', 'reviewer-password-123'); await pB.fill('#password', 'reviewer-password-456'); await pB.fill('#confirm', 'reviewer-password-456');
await pB.getByRole('button', { name: 'Change password' }).click(); await pB.waitForTimeout(1200);
console.log('B after pw change ->', pB.url(), await pB.locator('[role=status],[role=alert]').allInnerTexts());
await pA.locator('input[name=code]').fill(totp(load('secKey'))); await pA.locator('button[type=submit]').first().click(); await pA.waitForLoadState('networkidle'); await pA.waitForTimeout(300);
console.log('A after code ->', pA.url()); console.log(await text(pA)); await shot(pA, '30b-sec-pending-after-pwchange');
await b.close();
