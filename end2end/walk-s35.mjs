import { browser, ctx, shot, text, BASE } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/admin-state.json' }); const p = await c.newPage();
await p.goto(BASE + '/users/usr_9bc4e649e2bde5a2d4fd714e'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(300);
const t = await p.locator('main').innerText(); console.log(t.slice(0, t.indexOf('History')+400));
await b.close();
