import { browser, ctx, shot, BASE } from './walk-lib.mjs';
const b = await browser();
for (const scheme of ['light', 'dark']) {
  const c = await ctx(b, { width: 390, scheme, state: '/tmp/walk/admin-state.json' }); const p = await c.newPage();
  await p.goto(BASE + '/single-sign-on'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(300);
  await shot(p, `29-sso-390-${scheme}`);
  await p.goto(BASE + '/users/usr_9bc4e649e2bde5a2d4fd714e'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(300);
  await shot(p, `29b-user-sec-390-${scheme}`, false);
  await p.goto(BASE + '/users'); await p.waitForLoadState('networkidle'); await p.waitForTimeout(300);
  await shot(p, `29c-users-390-${scheme}`, false);
  await c.close();
}
await b.close();
