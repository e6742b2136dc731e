import { browser, ctx, shot, text, BASE } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b); const p = await c.newPage();
await p.goto(BASE + '/login'); await p.fill('#email', 'admin@example.com'); await p.fill('#password', 'admin-password-123');
await p.click('button:has-text("Sign in")'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(500);
console.log(p.url()); console.log(await text(p)); await shot(p, '26a-admin-login-throttled');
await b.close();
