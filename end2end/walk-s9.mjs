import { browser, ctx, shot, text, BASE, totp, save } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { width: 390, scheme: 'dark' }); const p = await c.newPage();
await p.goto(BASE + '/login');
await p.fill('#email', 'admin@example.com'); await p.fill('#password', 'admin-password-123');
await shot(p, '09-login-390-dark');
await p.click('button:has-text("Sign in")'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(500);
console.log(p.url()); await shot(p, '09b-admin-enrol-390-dark');
await p.getByText('Cannot scan it?').click(); await p.waitForTimeout(300);
await shot(p, '09c-admin-enrol-390-dark-key');
const dt = await p.locator('details').innerText(); const key = dt.match(/([A-Z2-7]{4}(?: [A-Z2-7]{4})+)/)[1].replace(/ /g,''); save('adminKey', key); console.log('key', key);
for (const bad of ['12345', '1234567', 'abcdef', '']) {
  await p.fill('#enrol-code', bad); await p.click('button:has-text("Turn on and sign in")'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(400);
  const err = await p.locator('.error, [role=alert], .field-error, p.text-red, .invalid').allInnerTexts().catch(()=>[]);
  const v = await p.locator('#enrol-code').evaluate(e => e.validationMessage);
  console.log(JSON.stringify(bad), '->', err, 'validation:', v);
}
await shot(p, '09d-admin-enrol-bad');
const code = totp(key); const typed = code.slice(0,3) + '-' + code.slice(3);
await p.fill('#enrol-code', typed); await p.click('button:has-text("Turn on and sign in")'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(800);
console.log('dash ->', p.url()); const t = await text(p); console.log(t);
await shot(p, '09e-admin-after-dash');
if (t.includes('recovery codes')) {
  const codes = t.match(/[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}/g); save('adminRecovery', codes); console.log(codes);
  await p.getByText('Copy them all').click(); await p.waitForTimeout(300); await shot(p, '09f-admin-copy-all');
  console.log(await p.locator('details').last().innerHTML());
  await c.storageState({ path: '/tmp/walk/admin390-state.json' });
}
await b.close();
