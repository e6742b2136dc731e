import { browser, ctx, shot, text, BASE, totp, load, save } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { width: 390, scheme: 'dark', state: '/tmp/walk/dev-state.json' }); const p = await c.newPage();
await p.goto(BASE + '/account'); await p.waitForLoadState('networkidle');
await p.getByRole('button', { name: 'Set up an authenticator app' }).click(); await p.waitForTimeout(800);
const sec = p.locator('main'); console.log(await sec.innerText()); await shot(p, '17-dev-account-setup-390-dark');
console.log(await p.locator('main input, main button, main a').evaluateAll(es => es.map(e => `${e.tagName} id=${e.id} text=${(e.innerText||'').trim()} href=${e.getAttribute('href')||''}`)));
await b.close();
