import { browser, ctx, BASE } from './walk-lib.mjs';
import fs from 'node:fs';
const b = await browser(); const c = await ctx(b, { state: '/tmp/walk/admin-state.json' }); const p = await c.newPage();
await p.goto(BASE + '/audit'); await p.waitForLoadState('networkidle');
const [dl] = await Promise.all([p.waitForEvent('download'), p.getByText('Export JSON lines').click()]);
await dl.saveAs('/tmp/walk/audit.jsonl'); await b.close();
