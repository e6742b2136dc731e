import { browser, ctx, shot, text, BASE, totp, load, waitNextStep } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b); const p = await c.newPage();
await p.goto(BASE + '/login');
await p.fill('#email', 'dev@example.com'); await p.fill('#password', 'developer-password-123');
await p.click('button:has-text("Sign in")'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(500);
console.log(p.url()); console.log(await text(p)); await shot(p, '10-dev-challenge');
console.log(await p.locator('input,button,a').evaluateAll(es => es.map(e => `${e.tagName} type=${e.type||''} name=${e.name||''} id=${e.id} ac=${e.autocomplete||''} im=${e.getAttribute('inputmode')||''} pattern=${e.getAttribute('pattern')||''} maxlength=${e.getAttribute('maxlength')||''} autofocus=${e.autofocus} text=${(e.innerText||'').trim().slice(0,50)} href=${e.getAttribute('href')||''}`)));
console.log('focused:', await p.evaluate(() => document.activeElement && (document.activeElement.id || document.activeElement.tagName)));
const inp = p.locator('input[name=code]').first();
const submit = p.locator('button[type=submit]').first();
const key = load('devKey');
for (const bad of ['12345', '1234567', 'abcdef', '000000']) {
  await inp.fill(bad); await submit.click(); await p.waitForLoadState('networkidle'); await p.waitForTimeout(400);
  const t = await text(p); const line = t.split('\n').filter(l => /not|wrong|must|digits|invalid|try|many/i.test(l));
  console.log(JSON.stringify(bad), '->', line, 'url', p.url());
}
await shot(p, '10b-dev-challenge-wrong');
// old code (3 steps ago), next-step code (drift +1)
await inp.fill(totp(key, -3)); await submit.click(); await p.waitForLoadState('networkidle'); await p.waitForTimeout(400);
console.log('code from 90s ago ->', (await text(p)).split('\n').filter(l => /not|wrong|expired|old/i.test(l)));
await inp.fill(totp(key, -1)); await submit.click(); await p.waitForLoadState('networkidle'); await p.waitForTimeout(800);
console.log('code from previous step ->', p.url()); 
await shot(p, '10c-dev-after-drift-code', false);
await c.storageState({ path: '/tmp/walk/dev-state.json' });
// replay: new context, same code
const c2 = await ctx(b); const p2 = await c2.newPage();
await p2.goto(BASE + '/login'); await p2.fill('#email', 'dev@example.com'); await p2.fill('#password', 'developer-password-123');
await p2.click('button:has-text("Sign in")'); await p2.waitForLoadState('networkidle');
await p2.locator('input[name=code]').fill(totp(key, -1)); await p2.locator('button[type=submit]').first().click(); await p2.waitForLoadState('networkidle'); await p2.waitForTimeout(400);
console.log('replay ->', p2.url(), (await text(p2)).split('\n').filter(l => /not|wrong|once|used/i.test(l)));
await shot(p2, '10d-dev-replay');
await b.close();
