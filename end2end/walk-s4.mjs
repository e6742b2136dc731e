import { browser, ctx, shot, text, BASE } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/admin-state.json' }); const p = await c.newPage();
await p.goto(BASE + '/single-sign-on'); await p.waitForLoadState('networkidle');
for (const l of ['Admins','Security reviewers','Developers']) console.log(l, await p.getByLabel(l).isChecked());
await b.close();
