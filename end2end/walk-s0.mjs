import { browser, ctx, shot, text, BASE } from '/work/main/end2end/walk-lib.mjs';
const b = await browser(); const c = await ctx(b); const p = await c.newPage();
await p.goto(BASE + '/'); await p.waitForLoadState('networkidle');
console.log(p.url()); console.log(await text(p)); await shot(p, '00-login');
console.log(await p.locator('input').evaluateAll(es => es.map(e => `${e.type} name=${e.name} id=${e.id} ac=${e.autocomplete}`)));
await b.close();
