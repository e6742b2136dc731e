import { browser, ctx, shot, text, BASE } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/admin-state.json' }); const p = await c.newPage();
await p.goto(BASE + '/single-sign-on'); await p.waitForLoadState('networkidle');
await p.getByRole('button', { name: 'Add a provider' }).click(); await p.waitForTimeout(600);
const t = await p.locator('body').innerText(); const i = t.indexOf('amr'); console.log(t.slice(Math.max(0, t.indexOf('Add a provider', 200)), t.length).slice(0, 3000));
await shot(p, '36-add-provider');
await b.close();
