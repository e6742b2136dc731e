import { chromium } from 'playwright';
import crypto from 'node:crypto';
import fs from 'node:fs';
export const BASE = 'http://127.0.0.1:3188';
export function b32decode(s) {
  const a = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  s = s.replace(/[\s=-]/g, '').toUpperCase();
  let bits = 0, val = 0; const out = [];
  for (const c of s) { const i = a.indexOf(c); if (i < 0) throw new Error('bad b32 ' + c); val = (val << 5) | i; bits += 5; if (bits >= 8) { out.push((val >>> (bits - 8)) & 255); bits -= 8; } }
  return Buffer.from(out);
}
export function totp(key, offsetSteps = 0, t = Date.now()) {
  const step = Math.floor(t / 1000 / 30) + offsetSteps;
  const buf = Buffer.alloc(8); buf.writeBigUInt64BE(BigInt(step));
  const h = crypto.createHmac('sha1', b32decode(key)).update(buf).digest();
  const o = h[h.length - 1] & 15;
  const n = ((h[o] & 127) << 24) | (h[o + 1] << 16) | (h[o + 2] << 8) | h[o + 3];
  return String(n % 1e6).padStart(6, '0');
}
export async function waitNextStep() { const ms = 30000 - (Date.now() % 30000) + 300; await new Promise(r => setTimeout(r, ms)); }
export async function browser() { return chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox'] }); }
export async function ctx(b, { width = 1280, scheme = 'light', state } = {}) {
  const c = await b.newContext({ viewport: { width, height: width < 600 ? 844 : 900 }, colorScheme: scheme, storageState: state });
  return c;
}
export async function shot(page, name, full = true) { await page.screenshot({ path: `/tmp/walk/${name}.png`, fullPage: full }); console.log('shot', name); }
export function save(k, v) { const f = '/tmp/walk/state.json'; const s = fs.existsSync(f) ? JSON.parse(fs.readFileSync(f)) : {}; s[k] = v; fs.writeFileSync(f, JSON.stringify(s, null, 1)); }
export function load(k) { const f = '/tmp/walk/state.json'; return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f))[k] : undefined; }
export async function text(page) { return (await page.locator('body').innerText()).replace(/\n{2,}/g, '\n'); }
