import { browser, ctx, shot, text, BASE } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/admin-state.json' }); const p = await c.newPage();
await p.goto(BASE + '/users/usr_1143aa34e1214560806a6e34'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(300);
await p.getByRole('button', { name: /reset authenticator/i }).click(); await p.waitForTimeout(300);
await shot(p, '21-user-reset-inline', false);
await p.getByRole('button', { name: 'Reset', exact: true }).click(); await p.waitForTimeout(1000);
const t = await p.locator('main').innerText(); console.log(t.slice(0, t.indexOf('History')));
console.log('toasts:', await p.locator('[role=status],[role=alert]').allInnerTexts());
await shot(p, '21b-user-after-reset', false);
// dev session
const c2 = await ctx(b, { state: '/tmp/walk/dev-state.json' }); const p2 = await c2.newPage();
await p2.goto(BASE + '/account'); await p2.waitForLoadState('networkidle'); console.log('dev session ->', p2.url());
await b.close();
