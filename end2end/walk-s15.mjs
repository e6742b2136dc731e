import { browser, ctx, shot, text, BASE, totp, load, save, waitNextStep } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/dev-state.json' }); const p = await c.newPage();
await c.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
await p.goto(BASE + '/account'); await p.waitForLoadState('networkidle');
// use a recovery code to renew
const rc = load('devRecovery'); console.log('using', rc[0]);
await p.getByText('Get new recovery codes').click();
await p.fill('#sf-renew-code', rc[0].toUpperCase()); await p.click('button:has-text("Get new codes")'); await p.waitForTimeout(1000);
const t = await p.locator('main').innerText(); const codes = t.match(/[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}/g); console.log('got', codes && codes.length);
if (codes) save('devRecovery', [...new Set(codes)]);
await p.getByText('Copy them all').click(); await p.waitForTimeout(200);
await p.getByRole('button', { name: 'Copy recovery codes' }).click(); await p.waitForTimeout(300);
console.log('CLIPBOARD:', JSON.stringify(await p.evaluate(() => navigator.clipboard.readText())));
await shot(p, '15-dev-renew-copy');
await b.close();
