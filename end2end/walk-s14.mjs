import { browser, ctx, shot, text, BASE, totp, load, save, waitNextStep } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/dev-state.json' }); const p = await c.newPage();
await c.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
p.on('dialog', d => { console.log('DIALOG', d.message()); d.accept(); });
await p.goto(BASE + '/account'); await p.waitForLoadState('networkidle');
const sec = () => p.locator('div').filter({ has: p.getByRole('heading', { name: 'Two-step verification' }) }).last();
await p.getByText('Get new recovery codes').click();
// wrong code
await p.fill('#sf-renew-code', '111111'); await p.click('button:has-text("Get new codes")'); await p.waitForTimeout(800);
console.log('WRONG renew:', await sec().innerText()); await shot(p, '14-dev-renew-wrong', false);
const toasts = await p.locator('[role=status], [role=alert], .toast').allInnerTexts(); console.log('toasts', toasts);
await waitNextStep();
const key = load('devKey');
await p.fill('#sf-renew-code', totp(key)); await p.click('button:has-text("Get new codes")'); await p.waitForTimeout(1000);
console.log('RENEW:', await sec().innerText()); await shot(p, '14b-dev-renew-ok');
const t = await sec().innerText(); const codes = t.match(/[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}/g); console.log(codes && codes.length);
if (codes) save('devRecovery', [...new Set(codes)]);
const copyBtns = p.getByRole('button', { name: /copy/i }); console.log('copy buttons', await copyBtns.count());
if (await copyBtns.count()) { await copyBtns.first().click().catch(e=>console.log('copy click fail', e.message)); await p.waitForTimeout(300); console.log('CLIPBOARD:', JSON.stringify(await p.evaluate(() => navigator.clipboard.readText()).catch(e => 'ERR ' + e.message))); }
// navigate away and back
await p.goto(BASE + '/'); await p.goto(BASE + '/account'); await p.waitForLoadState('networkidle');
console.log('AFTER NAV:', await sec().innerText());
await b.close();
