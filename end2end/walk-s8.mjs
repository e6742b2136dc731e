import { browser, ctx, shot, text, BASE } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/dev-state.json' }); const p = await c.newPage();
await p.goto(BASE + '/login/second-factor'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(500);
console.log('RELOAD codes page ->', p.url()); console.log(await text(p)); await shot(p, '08-dev-codes-reload');
await p.goto(BASE + '/'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(500);
console.log('HOME ->', p.url()); await shot(p, '08b-dev-home', false);
await b.close();
