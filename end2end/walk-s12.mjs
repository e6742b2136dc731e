import { browser, ctx, shot, text, BASE, totp, load } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/dev-state.json' }); const p = await c.newPage();
await p.goto(BASE + '/'); await p.waitForLoadState('networkidle');
await p.getByRole('button', { name: /Dev Eloper/ }).click().catch(async () => { await p.getByText('Dev Eloper').click(); });
await p.waitForTimeout(300); await shot(p, '12-dev-usermenu', false);
console.log(await p.locator('a, [role=menuitem]').evaluateAll(es => es.map(e => (e.innerText||'').trim() + ' ' + (e.getAttribute('href')||'')).filter(s => /acc|sign|prof/i.test(s))));
await p.goto(BASE + '/account'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(300);
console.log(p.url()); console.log(await p.locator('main').innerText()); await shot(p, '12b-dev-account');
await b.close();
