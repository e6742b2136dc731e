import { browser, ctx, shot, text, BASE } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/admin-state.json' }); const p = await c.newPage();
await p.goto(BASE + '/users'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(300);
console.log(p.url()); console.log(await p.locator('main').innerText()); await shot(p, '18-console-users');
await p.getByText('Dev Eloper').first().click(); await p.waitForLoadState('networkidle'); await p.waitForTimeout(500);
console.log(p.url()); console.log(await p.locator('main').innerText()); await shot(p, '18b-user-dev');
await b.close();
