import { browser, ctx, shot, text, BASE, totp, save } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/dev-pending.json' }); const p = await c.newPage();
await p.goto(BASE + '/login/second-factor'); await p.waitForLoadState('networkidle');
console.log(p.url());
await p.getByText('Cannot scan it?').click(); await p.waitForTimeout(300);
const det = p.locator('details'); console.log('DETAILS:', await det.innerText());
await shot(p, '06-dev-enrol-key');
// QR screenshot only
await p.locator('svg').first().screenshot({ path: '/tmp/walk/06-qr.png' });
const href = await p.locator('a[href^="otpauth"]').getAttribute('href'); console.log('href', href);
// key from details text
const m = (await det.innerText()).match(/([A-Z2-7]{4}[ A-Z2-7]{10,})/); const key = m[1].replace(/\s/g,''); console.log('key', key);
save('devKey', key);
// wrong code
await p.fill('#enrol-code', '123456'); await p.click('button:has-text("Turn on and sign in")'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(500);
console.log('AFTER WRONG:', p.url()); console.log(await text(p)); await shot(p, '06b-dev-enrol-wrong');
// did the key change?
const det2 = await p.locator('details').innerText().catch(()=>'(no details)'); console.log('DETAILS2', det2);
await c.storageState({ path: '/tmp/walk/dev-pending.json' });
await b.close();
