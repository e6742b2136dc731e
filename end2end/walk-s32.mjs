import { browser, ctx, shot, text, BASE, totp, load } from './walk-lib.mjs';
const b = await browser();
const c = await ctx(b); const p = await c.newPage();
await p.goto(BASE + '/login/second-factor'); await p.waitForLoadState('networkidle');
console.log('direct, no pending ->', p.url(), (await text(p)).split('\n').slice(4, 8));
await p.goto(BASE + '/login'); await p.fill('#email', 'dev@example.com'); await p.fill('#password', 'developer-password-123');
await p.click('button:has-text("Sign in")'); await p.waitForLoadState('networkidle');
console.log('dev pending ->', p.url());
await p.getByText('Cannot scan it?').click();
const key = (await p.locator('details').first().innerText()).match(/([A-Z2-7]{4}(?: [A-Z2-7]{4})+)/)[1].replace(/ /g,'');
await p.getByRole('link', { name: 'Sign in as someone else' }).click(); await p.waitForLoadState('networkidle');
console.log('someone else ->', p.url());
await p.goBack(); await p.waitForLoadState('networkidle'); console.log('back ->', p.url(), (await text(p)).split('\n').slice(4, 8));
// sign in again as dev: is the key the same?
await p.goto(BASE + '/login'); await p.fill('#email', 'dev@example.com'); await p.fill('#password', 'developer-password-123');
await p.click('button:has-text("Sign in")'); await p.waitForLoadState('networkidle');
await p.getByText('Cannot scan it?').click();
const key2 = (await p.locator('details').first().innerText()).match(/([A-Z2-7]{4}(?: [A-Z2-7]{4})+)/)[1].replace(/ /g,'');
console.log('same key on second attempt?', key === key2);
// reload the enrol page: same key?
await p.reload(); await p.waitForLoadState('networkidle'); await p.getByText('Cannot scan it?').click();
const key3 = (await p.locator('details').first().innerText()).match(/([A-Z2-7]{4}(?: [A-Z2-7]{4})+)/)[1].replace(/ /g,'');
console.log('same key after reload?', key2 === key3);
// admin disables dev now
const ca = await ctx(b, { state: '/tmp/walk/admin-state.json' }); const pa = await ca.newPage();
await pa.goto(BASE + '/users/usr_1143aa34e1214560806a6e34'); await pa.waitForLoadState('networkidle');
await pa.getByRole('button', { name: 'Disable' }).first().click(); await pa.waitForTimeout(400);
const dlgBtn = pa.locator('[role=dialog] button, dialog button').filter({ hasText: /disable/i }); console.log('disable confirm btns', await dlgBtn.count());
if (await dlgBtn.count()) await dlgBtn.last().click(); await pa.waitForTimeout(800);
console.log('admin toasts', await pa.locator('[role=status],[role=alert]').allInnerTexts());
await p.fill('#enrol-code', totp(key3)); await p.click('button:has-text("Turn on and sign in")'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(300);
console.log('dev after disable ->', p.url(), (await text(p)).split('\n').slice(4, 8));
// enable again
await pa.reload(); await pa.waitForLoadState('networkidle');
await pa.getByRole('button', { name: 'Enable' }).first().click(); await pa.waitForTimeout(400);
const en = pa.locator('[role=dialog] button, dialog button').filter({ hasText: /enable/i }); if (await en.count()) await en.last().click(); await pa.waitForTimeout(800);
console.log('admin toasts', await pa.locator('[role=status],[role=alert]').allInnerTexts());
await b.close();
