import { browser, ctx, shot, text, BASE } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b); const p = await c.newPage();
await p.goto(BASE + '/realms/default/account'); await p.waitForLoadState('networkidle');
console.log(p.url()); console.log(await text(p)); await shot(p, '25-realm-account');
console.log(await p.locator('input').evaluateAll(es => es.map(e => `${e.type} ${e.name} ${e.id}`)));
for (const [e, pw] of [['sec@example.com','reviewer-password-123'], ['sec@example.com','wrong-password-xx'], ['dev@example.com','developer-password-123']]) {
  await p.goto(BASE + '/realms/default/account'); await p.waitForLoadState('networkidle');
  const email = p.locator('input[type=email], input[name=username], input[name=email]').first();
  await email.fill(e); await p.locator('input[type=password]').first().fill(pw);
  await p.locator('button[type=submit]').first().click(); await p.waitForLoadState('networkidle'); await p.waitForTimeout(500);
  const t = await text(p); console.log(e, pw, '->', p.url(), t.split('\n').filter(l => /wrong|incorrect|not|invalid|second|two-step|code/i.test(l)).slice(0,3));
}
await shot(p, '25b-realm-account-refused');
await b.close();
