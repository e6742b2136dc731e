import { browser, ctx, shot, text, BASE } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b); const p = await c.newPage();
await p.goto(BASE + '/login');
await p.fill('#email', 'dev@example.com'); await p.fill('#password', 'developer-password-123');
await p.click('button:has-text("Sign in")'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(500);
console.log(p.url()); console.log(await text(p)); await shot(p, '05-dev-enrol');
console.log(await p.locator('input,button,a,img,canvas,svg').evaluateAll(es => es.map(e => `${e.tagName} type=${e.type||''} name=${e.name||''} id=${e.id} ac=${e.autocomplete||''} im=${e.inputMode||''} aria=${e.getAttribute('aria-label')||''} alt=${e.alt||''} text=${(e.innerText||'').trim().slice(0,40)} href=${e.getAttribute('href')||''}`)));
await c.storageState({ path: '/tmp/walk/dev-pending.json' });
await b.close();
