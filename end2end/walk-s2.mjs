import { browser, ctx, shot, text, BASE } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/admin-state.json' }); const p = await c.newPage();
await p.goto(BASE + '/single-sign-on'); await p.waitForLoadState('networkidle');
console.log(await text(p)); await shot(p, '02-sso-page');
await b.close();
