import { browser, ctx, shot, text, BASE } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/admin-state.json' }); const p = await c.newPage();
await p.goto(BASE + '/users'); await p.waitForLoadState('networkidle'); console.log('admin old session ->', p.url());
await b.close();
