import { browser, ctx, shot, text, BASE } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/admin-state.json' }); const p = await c.newPage();
p.on('dialog', d => { console.log('DIALOG', d.type(), d.message()); d.accept(); });
await p.goto(BASE + '/users/usr_1143aa34e1214560806a6e34'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(300);
const card = p.locator('main'); const t = await card.innerText(); console.log(t.slice(0, t.indexOf('History')));
await shot(p, '20-user-dev-enrolled', false);
const btn = p.getByRole('button', { name: /reset authenticator/i }); console.log('reset btns', await btn.count());
await btn.first().click(); await p.waitForTimeout(600);
console.log(await p.locator('body').innerText().then(s => s.slice(0, 3000)));
await shot(p, '20b-user-dev-reset-confirm', false);
const dlg = p.locator('[role=dialog], dialog[open]'); console.log('dialogs', await dlg.count());
if (await dlg.count()) { console.log('DLG:', await dlg.first().innerText()); }
await b.close();
