import { browser, ctx, shot, text, BASE } from './walk-lib.mjs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/admin-state.json' }); const p = await c.newPage();
p.on('dialog', d => { console.log('DIALOG', d.message()); d.accept(); });
await p.goto(BASE + '/single-sign-on'); await p.waitForLoadState('networkidle');
await p.getByLabel('Developers').check();
await p.getByRole('button', { name: 'Save' }).click(); await p.waitForTimeout(1000);
const sec = p.locator('section, .card').filter({ hasText: 'Two-step verification' }).first();
console.log(await sec.innerText());
await shot(p, '03-sso-dev-required', false);
await p.getByLabel('Admins').check();
await p.getByRole('button', { name: 'Save' }).click(); await p.waitForTimeout(1000);
console.log('---'); console.log(await sec.innerText());
await shot(p, '03b-sso-admin-required', false);
// reload to see persisted
await p.reload(); await p.waitForLoadState('networkidle');
console.log('--- after reload'); console.log(await p.locator('section, .card').filter({ hasText: 'Two-step verification' }).first().innerText());
for (const l of ['Admins','Security reviewers','Developers']) console.log(l, await p.getByLabel(l).isChecked());
await b.close();
