import { browser, ctx, shot, text, BASE } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/admin-state.json' }); const p = await c.newPage();
await p.goto(BASE + '/audit'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(400);
console.log(p.url());
const t = await p.locator('main').innerText(); console.log(t.slice(0, 2500));
await shot(p, '27-audit', false);
// expand a few details
const det = p.locator('main details'); const n = await det.count(); console.log('details', n);
for (let i = 0; i < Math.min(n, 8); i++) { await det.nth(i).locator('summary').click(); }
await p.waitForTimeout(300);
const t2 = await p.locator('main').innerText(); console.log(t2.slice(0, 5000));
await shot(p, '27b-audit-details');
await b.close();
