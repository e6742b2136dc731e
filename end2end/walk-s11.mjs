import { browser, ctx, shot, text, BASE, totp, load } from './walk-lib.mjs';
const b = await browser();
async function attempt(code, label) {
  const c = await ctx(b); const p = await c.newPage();
  await p.goto(BASE + '/login'); await p.fill('#email', 'admin@example.com'); await p.fill('#password', 'admin-password-123');
  await p.click('button:has-text("Sign in")'); await p.waitForLoadState('networkidle');
  await p.locator('input[name=code]').fill(code); await p.locator('button[type=submit]').first().click(); await p.waitForLoadState('networkidle'); await p.waitForTimeout(600);
  const t = await text(p);
  console.log(label, JSON.stringify(code), '->', p.url(), t.split('\n').filter(l => /not|wrong|once|used|left|recovery|many|remaining/i.test(l) && l.length < 300).slice(0,3));
  if (label === 'upper') { await shot(p, '11-admin-after-recovery', false); }
  await c.close();
}
await attempt('KU7R-PDSQ-I3GH-22KL', 'upper');
await attempt('6fsc 6bxh adpg a6xs', 'spaces');
await attempt('ln5zi4ovzyy6jtn2', 'nosep');
await attempt('  z4ta-tgwf-4gqq-ybcn  ', 'padded');
await attempt('ku7r-pdsq-i3gh-22kl', 'reuse');
await attempt('15ip-obid-6m5u-omsv', 'one-for-l');
await attempt('x7l2–sn2s–wvyx–fzts', 'endash');
await attempt('x7l2_sn2s_wvyx_fzts', 'underscore');
await b.close();
