#!/usr/bin/env node
// Proves the rendered managed files with the real CLIs: Claude Code, Codex and Gemini CLI
// (pinned in package.json) read what `portcullis registry render` writes, installed where it
// says, and against loopback MCP servers show that
//   - the approved servers load and connect (a remote one over TLS, a local stdio one),
//   - a server the user added to their own configuration is blocked (and, as a control, does
//     connect when no managed file is installed),
//   - a user's redefinition of an approved server's name cannot point it elsewhere,
//   - the token helper (headersHelper / http_headers_helper) is the real `portcullis-cli token`:
//     a person signed in once (`portcullis-cli login` against a running Portcullis), and the
//     header that reaches the server is a Portcullis token for exactly that server (audience,
//     registry id, at most five minutes), signed by the realm's key.
//
//   PORTCULLIS_BIN=/path/to/portcullis node run.mjs [--portcullis PATH]
//       [--harness claude-code,codex,gemini] [--no-install] [--reinstall] [--keep]
//       [--report FILE]
//
// Offline: no vendor account, and once the CLIs are installed from npm everything runs in
// private mount, network and PID namespaces (`unshare`), where only loopback exists and
// /etc is an overlay whose writes land in a temporary directory — nothing is ever written
// to the real /etc. Without unshare (or without root) it stops, unless
// PORTCULLIS_HARNESS_DIRECT_ETC=1 allows writing /etc/claude-code, /etc/codex and
// /etc/gemini-cli directly (only if none exists yet; all removed on exit).
import { spawn, spawnSync } from 'node:child_process';
import { createPublicKey, randomBytes, verify as verifySignature } from 'node:crypto';
import { createServer } from 'node:net';
import {
  chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const MODULES = join(HERE, 'node_modules');
const HARNESSES = ['claude-code', 'codex', 'gemini'];
/** The managed directory each CLI reads (only there: the test installs at the printed path). */
const ETC_DIRS = { 'claude-code': '/etc/claude-code', codex: '/etc/codex', gemini: '/etc/gemini-cli' };
const INSIDE = process.env.PORTCULLIS_HARNESS_INSIDE === '1';
const started = Date.now();

// ---------------------------------------------------------------------------------------
// Arguments.

function parseArgs(argv) {
  const o = {
    bin: process.env.PORTCULLIS_BIN,
    harnesses: HARNESSES,
    install: true,
    reinstall: false,
    keep: false,
    report: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) die(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--portcullis') o.bin = value();
    else if (a === '--harness') o.harnesses = value().split(',').map((s) => s.trim()).filter(Boolean);
    else if (a === '--no-install') o.install = false;
    else if (a === '--reinstall') o.reinstall = true;
    else if (a === '--keep') o.keep = true;
    else if (a === '--report') o.report = value();
    else if (a === '-h' || a === '--help') {
      process.stdout.write(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 20).join('\n') + '\n');
      process.exit(0);
    } else die(`unknown argument ${a}`);
  }
  for (const h of o.harnesses) if (!HARNESSES.includes(h)) die(`--harness: ${h} is not one of ${HARNESSES.join(', ')}`);
  if (!o.bin) die('name the portcullis binary: PORTCULLIS_BIN=... or --portcullis PATH');
  if (!existsSync(o.bin)) die(`no portcullis binary at ${o.bin}`);
  return o;
}

function die(msg) {
  process.stderr.write(`harnesses: ${msg}\n`);
  process.exit(2);
}

const secs = (ms) => `${(ms / 1000).toFixed(1)}s`;
const say = (msg) => process.stdout.write(`${msg}\n`);

// ---------------------------------------------------------------------------------------
// Outside the namespaces: install the CLIs from npm, then run the rest inside.

/** Whether node_modules holds exactly what package-lock.json pins (for this platform). */
function installed() {
  const lock = JSON.parse(readFileSync(join(HERE, 'package-lock.json'), 'utf8')).packages;
  const wanted = [
    'node_modules/@anthropic-ai/claude-code',
    'node_modules/@anthropic-ai/claude-code-linux-x64',
    'node_modules/@openai/codex',
    'node_modules/@openai/codex-linux-x64',
    'node_modules/@google/gemini-cli',
    'node_modules/@modelcontextprotocol/sdk',
  ];
  return wanted.every((p) => {
    const file = join(HERE, p, 'package.json');
    if (!existsSync(file) || !lock[p]) return false;
    const version = JSON.parse(readFileSync(file, 'utf8')).version;
    return version === lock[p].version;
  });
}

function install(o) {
  const t = Date.now();
  if (!o.reinstall && installed()) {
    say(`npm: node_modules already holds the pinned versions (checked in ${secs(Date.now() - t)})`);
    return Date.now() - t;
  }
  // --ignore-scripts: no install script runs, so nothing is fetched from outside the npm
  // registry. Claude Code's postinstall only copies the binary out of its npm-hosted
  // platform package (@anthropic-ai/claude-code-linux-x64), which this test runs directly;
  // Codex's binary is the npm-hosted @openai/codex@<version>-linux-x64; node-pty and keytar
  // (Gemini CLI's optional native modules) are not needed for `mcp list`.
  // The registry is reached over the network: a dropped connection or a registry hiccup
  // fails `npm ci` without anything being wrong here, so it is tried three times, and each
  // failure's reason is printed (npm's own message can be cut from a CI log).
  let ok = false;
  for (let attempt = 1; attempt <= 3 && !ok; attempt++) {
    say(`npm ci --ignore-scripts ... (attempt ${attempt} of 3)`);
    const r = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: HERE,
      stdio: ['ignore', 'inherit', 'pipe'],
      encoding: 'utf8',
    });
    ok = r.status === 0;
    if (!ok) {
      const reason = (r.stderr || String(r.error || '')).trim().split('\n').slice(-20).join('\n');
      say(`npm ci failed (exit ${r.status}):\n${reason}`);
      if (attempt < 3) spawnSync('sleep', [String(5 * attempt)]);
    }
  }
  if (!ok) die('npm ci failed three times');
  const ms = Date.now() - t;
  say(`npm ci: ${secs(ms)}`);
  return ms;
}

function outside(o) {
  if (process.platform !== 'linux' || process.arch !== 'x64') die('linux-x64 only (the platform packages are pinned for it)');
  const installMs = o.install ? install(o) : 0;
  const env = { ...process.env, PORTCULLIS_HARNESS_INSIDE: '1', PORTCULLIS_HARNESS_INSTALL_MS: String(installMs) };
  const args = [fileURLToPath(import.meta.url), ...process.argv.slice(2)];
  const flags = ['--mount', '--net', '--pid', '--fork', '--mount-proc', '--kill-child', '--propagation', 'private'];
  const probe = spawnSync('unshare', [...flags, 'true'], { stdio: 'ignore' });
  let r;
  if (probe.status === 0) {
    r = spawnSync('unshare', [...flags, process.execPath, ...args], { stdio: 'inherit', env: { ...env, PORTCULLIS_HARNESS_NS: '1' } });
  } else if (process.env.PORTCULLIS_HARNESS_DIRECT_ETC === '1') {
    say('unshare is not available: writing /etc directly (PORTCULLIS_HARNESS_DIRECT_ETC=1), removed on exit');
    r = spawnSync(process.execPath, args, { stdio: 'inherit', env });
  } else {
    die('cannot make private mount/network namespaces (unshare needs root here). Run as root, or set PORTCULLIS_HARNESS_DIRECT_ETC=1 to let the test create and remove /etc/claude-code, /etc/codex and /etc/gemini-cli itself.');
  }
  process.exit(r.status ?? 1);
}

// ---------------------------------------------------------------------------------------
// Inside: /etc, certificates, servers, the registry, the CLIs.

let T; // the run's temporary directory
const createdEtc = new Set(); // direct mode: the /etc directories this run created
const children = [];

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0 && !opts.allowFail) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stdout}${r.stderr}`);
  }
  return r;
}

function setupEtc() {
  if (process.env.PORTCULLIS_HARNESS_NS === '1') {
    // Only loopback exists in this network namespace.
    sh('ip', ['link', 'set', 'lo', 'up']);
    const upper = join(T, 'etc-overlay', 'upper');
    const work = join(T, 'etc-overlay', 'work');
    mkdirSync(upper, { recursive: true });
    mkdirSync(work, { recursive: true });
    sh('mount', ['-t', 'overlay', 'overlay', '-o', `lowerdir=/etc,upperdir=${upper},workdir=${work}`, '/etc']);
    return 'namespace (overlay on /etc, loopback-only network, own PID namespace)';
  }
  for (const d of Object.values(ETC_DIRS)) {
    if (existsSync(d)) die(`${d} already exists: refusing to touch it without a private mount namespace`);
  }
  const cleanup = () => {
    for (const d of createdEtc) rmSync(d, { recursive: true, force: true });
    createdEtc.clear();
  };
  process.on('exit', cleanup);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      cleanup();
      process.exit(130);
    });
  }
  return 'direct (/etc directories created and removed by this run)';
}

/** Installs the rendered managed files at the Linux paths `registry render` printed. */
function installManaged(harness, rendered) {
  removeManaged(harness);
  for (const f of rendered.files.filter((f) => f.scope === 'managed')) {
    if (!f.linux) throw new Error(`${harness}: no Linux install path printed for ${f.file}`);
    const dir = dirname(f.linux);
    if (dir !== ETC_DIRS[harness]) throw new Error(`${harness}: ${f.linux} is outside ${ETC_DIRS[harness]}`);
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true, mode: 0o755 });
      createdEtc.add(dir);
    }
    cpSync(f.file, f.linux);
    chmodSync(f.linux, 0o644);
  }
}

function removeManaged(harness) {
  rmSync(ETC_DIRS[harness], { recursive: true, force: true });
  createdEtc.delete(ETC_DIRS[harness]);
}

function certificates() {
  const d = join(T, 'tls');
  mkdirSync(d);
  const ossl = (args) => sh('openssl', args, { cwd: d });
  // A CA and a leaf for 127.0.0.1 (rustls, which Codex uses, refuses a CA certificate as a
  // server's own).
  ossl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem',
    '-days', '1', '-subj', '/CN=Portcullis harness test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign']);
  ossl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'key.pem', '-out', 'leaf.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(join(d, 'leaf.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n');
  ossl(['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-out', 'cert.pem', '-extfile', 'leaf.ext']);
  return { ca: join(d, 'ca.pem'), cert: join(d, 'cert.pem'), key: join(d, 'key.pem') };
}

async function startHttps(tls, log) {
  const child = spawn(process.execPath, [join(HERE, 'mcp-server.mjs'), 'https', tls.cert, tls.key, log], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const port = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const line = buf.split('\n')[0];
      if (buf.includes('\n')) resolve(JSON.parse(line).port);
    });
    child.on('exit', (code) => reject(new Error(`MCP server exited ${code}`)));
    setTimeout(() => reject(new Error('MCP server did not start')), 10000);
  });
  return port;
}

// The server log: one JSON line per request or stdio start.
function readLog(log) {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

// ---------------------------------------------------------------------------------------
// The registry: a policy with two approved servers, published and rendered per harness.

/** Where Portcullis serves the realm (set in `inside`), for the CLI commands and the server. */
let PORTCULLIS_URL;
const PASSWORD = 'a-long-enough-password';
const PERSON = 'ada@example.com';

function portcullisEnv(data) {
  return {
    PATH: process.env.PATH,
    HOME: T,
    PORTCULLIS_DATA_DIR: data,
    PORTCULLIS_PUBLIC_URL: PORTCULLIS_URL,
    PORTCULLIS_HTTP__BIND: PORTCULLIS_URL.replace('http://', ''),
    // The realm's issuer is http on loopback: its registry is a resource only so.
    PORTCULLIS_DEV__ALLOW_HTTP_LOOPBACK_RESOURCES: 'true',
    // `serve` wants a built console; nothing here opens it.
    PORTCULLIS_CONSOLE__SITE_DIR: join(T, 'site'),
  };
}

function portcullis(o, data, args, input) {
  const r = sh(o.bin, args, { env: portcullisEnv(data), input });
  return r.stdout + r.stderr;
}

function registry(o, { port }) {
  const data = join(T, 'portcullis');
  mkdirSync(data);
  portcullis(o, data, ['migrate']);
  const policy = {
    mode: 'allowlist',
    rings: ['ring0'],
    servers: [
      {
        id: 'approved',
        title: 'Approved remote server',
        url: `https://127.0.0.1:${port}${APPROVED_PATH}`,
        headers: { 'X-Portcullis-Env': '${PORTCULLIS_TEST_ENV}' },
        auth: { mode: 'portcullis' },
        rings: ['ring0'],
      },
      {
        id: 'local',
        title: 'Approved local server',
        command: { path: process.execPath, args: [join(HERE, 'mcp-server.mjs'), 'stdio', 'local', join(T, 'requests.jsonl')] },
        rings: ['ring0'],
      },
    ],
  };
  const file = join(T, 'policy.json');
  writeFileSync(file, JSON.stringify(policy, null, 2));
  portcullis(o, data, ['registry', 'apply', '--file', file]);
  portcullis(o, data, ['registry', 'publish']);
  // Portcullis authorizes the approved server: it is a resource of the realm; the registry
  // takes sign-ins (bearer); Ada is a person of the realm in ring0.
  portcullis(o, data, ['resources', 'create', '--id', 'approved', '--name', 'Approved remote server',
    '--uri', `https://127.0.0.1:${port}${APPROVED_PATH}`, '--scopes', 'tools:call']);
  portcullis(o, data, ['registry', 'settings', '--access', 'bearer']);
  portcullis(o, data, ['people', 'add', '--email', PERSON, '--name', 'Ada', '--password'], `${PASSWORD}\n`);
  portcullis(o, data, ['registry', 'add-member', '--ring', 'ring0', '--person', PERSON]);
  const out = {};
  for (const h of o.harnesses) {
    const dir = join(T, 'rendered', h);
    // The keyword: the realm's own `portcullis-cli token --server … --realm … --resource {url}`.
    const text = portcullis(o, data, ['registry', 'render', '--harness', h, '--ring', 'ring0', '--token-helper', 'portcullis-cli', '--out', dir]);
    writeFileSync(join(T, 'rendered', `${h}.txt`), text);
    out[h] = parseRender(text);
  }
  return { data, rendered: out };
}

/** A free loopback port. */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** `portcullis serve` on the registry's database, until it answers /healthz. */
async function startPortcullis(o, data) {
  const child = spawn(o.bin, ['serve'], { env: portcullisEnv(data), stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr.on('data', (d) => { err = (err + d).slice(-4000); });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${PORTCULLIS_URL}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`portcullis serve exited ${child.exitCode}: ${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`portcullis serve did not answer: ${err}`);
}

/**
 * `portcullis-cli login --no-browser`, with Ada in a scripted browser: open the printed URL,
 * sign in, allow, and follow the redirect to the CLI's loopback listener.
 */
async function signIn(cliBin, env) {
  const child = spawn(cliBin, ['login', '--server', PORTCULLIS_URL, '--realm', 'default', '--no-browser'], { env });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      err += d;
      const line = err.split('\n').map((l) => l.trim()).find((l) => l.startsWith('http'));
      if (line) resolve(line);
    });
    child.on('exit', (code) => reject(new Error(`portcullis-cli login exited ${code}: ${err}`)));
    setTimeout(() => reject(new Error(`portcullis-cli login printed no URL: ${err}`)), 15000);
  });
  const jar = new Map();
  const keep = (res) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const field = (html, name) => {
    const m = html.match(new RegExp(`name="${name}" value="([^"]*)"`));
    if (!m) throw new Error(`no ${name} in the page: ${html.slice(0, 500)}`);
    return m[1];
  };
  const post = async (form) => {
    const res = await fetch(`${PORTCULLIS_URL}/realms/default/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PORTCULLIS_URL, cookie: cookie() },
      body: new URLSearchParams(form).toString(),
    });
    keep(res);
    return res;
  };
  let res = await fetch(url, { redirect: 'manual' });
  keep(res);
  let html = await res.text();
  res = await post({ step: 'login', ticket: field(html, 'ticket'), email: PERSON, password: PASSWORD });
  html = await res.text();
  res = await post({ step: 'consent', decision: 'approve', ticket: field(html, 'ticket') });
  const back = res.headers.get('location');
  if (res.status !== 303 || !back) throw new Error(`consent answered ${res.status}: ${await res.text()}`);
  await (await fetch(back)).text();
  const code = child.exitCode ?? await new Promise((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`portcullis-cli login exited ${code}: ${out}${err}`);
}

/**
 * Whether `authorization` is `Bearer <JWT>` signed by a key of the realm's JWKS, for exactly
 * the approved server (`aud`, `mcp_server`), issued to portcullis-cli, living at most 5 minutes.
 */
function tokenVerdict(authorization, ctx) {
  const no = (why) => ({ ok: false, why });
  const m = /^Bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(authorization ?? '');
  if (!m) return no(`no Bearer JWT (authorization: ${authorization ? `${authorization.slice(0, 20)}…` : 'none'})`);
  const part = (b64) => JSON.parse(Buffer.from(b64, 'base64url').toString());
  const [header, claims] = [part(m[1]), part(m[2])];
  const jwk = ctx.jwks.keys.find((k) => k.kid === header.kid);
  if (!jwk) return no(`kid ${header.kid} is not in the realm's JWKS`);
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  const input = Buffer.from(`${m[1]}.${m[2]}`);
  const sig = Buffer.from(m[3], 'base64url');
  const signed = header.alg === 'EdDSA'
    ? verifySignature(null, input, key, sig)
    : verifySignature('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, sig);
  if (!signed) return no(`the signature does not verify (${header.alg})`);
  const facts = `aud=${claims.aud} mcp_server=${claims.mcp_server} client_id=${claims.client_id} sub=${claims.sub} lifetime=${claims.exp - claims.iat}s`;
  const ok = claims.aud === ctx.approvedUrl && claims.mcp_server === 'approved'
    && claims.client_id === 'portcullis-cli' && claims.exp - claims.iat <= 300 && claims.exp * 1000 > Date.now();
  return ok ? { ok, why: `verified: ${facts}` } : no(`wrong claims: ${facts}`);
}

/** `wrote PATH` lines, each followed by `  install on OS: PATH` lines; warnings; notes. */
function parseRender(text) {
  const files = [];
  const warnings = [];
  for (const line of text.split('\n')) {
    let m;
    if ((m = line.match(/^wrote (.+)$/))) {
      files.push({ file: m[1], scope: m[1].includes('/managed/') ? 'managed' : 'user' });
    } else if ((m = line.match(/^ {2}install on linux: (.+)$/)) && files.length) {
      files[files.length - 1].linux = m[1];
    } else if (line.startsWith('warning: ')) {
      warnings.push(line);
    }
  }
  return { text, files, warnings };
}

// ---------------------------------------------------------------------------------------
// Running a CLI.

function baseEnv(home, tls, extra) {
  // A clean environment: no vendor keys or proxies from the caller reach the CLIs.
  return {
    // ${T}/bin: the `portcullis-cli` the rendered token helper names.
    PATH: `${join(T, 'bin')}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    PORTCULLIS_TEST_ENV: ENV_NONCE,
    ...extra,
  };
}

const shown = (argv) => argv.map((a) => a.replace(`${MODULES}/`, 'node_modules/')).join(' ');

function runCli(cmd, args, env, cwd, timeoutMs = 90000) {
  const t = Date.now();
  const r = spawnSync(cmd, args, { env, cwd, encoding: 'utf8', timeout: timeoutMs });
  return {
    cmd: shown([cmd, ...args]),
    status: r.status,
    stdout: r.stdout ?? '',
    stderr: r.stderr ?? '',
    error: r.error?.message,
    ms: Date.now() - t,
  };
}

/** `codex app-server`: initialize, then `mcpServerStatus/list`, which starts every enabled server. */
function codexAppServer(cmd, args, env, cwd, timeoutMs = 90000) {
  const t = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let done = false;
    const finish = (result) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.stdin.end();
      child.kill('SIGTERM');
      resolve({ ...result, stdout: out, stderr: err, ms: Date.now() - t, cmd: `${shown([cmd, ...args])} (mcpServerStatus/list)` });
    };
    const timer = setTimeout(() => finish({ error: 'timed out' }), timeoutMs);
    const send = (m) => child.stdin.write(JSON.stringify(m) + '\n');
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      for (const line of out.split('\n')) {
        let m;
        try {
          m = JSON.parse(line);
        } catch {
          continue;
        }
        if (m.id === 0 && !child.initialized) {
          child.initialized = true;
          send({ method: 'initialized' });
          send({ method: 'mcpServerStatus/list', id: 1, params: {} });
        } else if (m.id === 1) {
          finish({ result: m.result, rpcError: m.error });
        }
      }
    });
    child.on('exit', (code) => finish({ error: `exited ${code} before answering` }));
    send({ method: 'initialize', id: 0, params: { clientInfo: { name: 'portcullis-harness-test', title: 'Portcullis harness test', version: '1.0.0' } } });
  });
}

// ---------------------------------------------------------------------------------------
// Results.

const results = [];
function check(harness, scenario, assertion, ok, evidence) {
  results.push({ harness, scenario, assertion, ok: !!ok, evidence });
  say(`  ${ok ? 'PASS' : 'FAIL'} ${assertion}\n       ${String(evidence).split('\n').join('\n       ')}`);
}

/** The first output line about `name` (`name: ...` as the CLIs print it), or a note that none is. */
function lineFor(text, name) {
  const line = text.split('\n').find((l) => new RegExp(`^\\W*${name}: `).test(l.trim()));
  return line?.trim();
}

function requestsTo(entries, path) {
  return entries.filter((e) => e.server === path);
}

function headerEvidence(entries, header) {
  const values = [...new Set(entries.map((e) => e.headers?.[header]).filter(Boolean))];
  return values;
}

// ---------------------------------------------------------------------------------------
// Scenarios, per harness. Each gets a fresh HOME: `control` without managed files, `managed`
// with them, `hijack` with them and the user's own definition of `approved` pointing elsewhere.

let ENV_NONCE;

const USER_PATH = '/user/mcp';
const HIJACK_PATH = '/hijack/mcp';
const APPROVED_PATH = '/approved/mcp';

function freshHome(harness, scenario) {
  const home = join(T, 'home', `${harness}-${scenario}`);
  mkdirSync(home, { recursive: true });
  return home;
}

const CLIS = {
  'claude-code': {
    name: 'Claude Code',
    bin: () => join(MODULES, '@anthropic-ai/claude-code-linux-x64/claude'),
    userConfig(home, servers) {
      writeFileSync(join(home, '.claude.json'), JSON.stringify({ mcpServers: servers }, null, 2));
    },
    userServer: (url) => ({ type: 'http', url }),
    async list(home, ctx) {
      const env = baseEnv(home, ctx.tls, {
        NODE_EXTRA_CA_CERTS: ctx.tls.ca,
        DISABLE_AUTOUPDATER: '1',
        DISABLE_UPDATES: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
      });
      const r = runCli(this.bin(), ['mcp', 'list'], env, ctx.work);
      const status = (name) => {
        const line = lineFor(r.stdout, name);
        return { line, connected: !!line && /(✔|✓) Connected/.test(line), listed: !!line };
      };
      return { runs: [r], status };
    },
  },
  codex: {
    name: 'Codex',
    bin: () => join(MODULES, '@openai/codex/bin/codex.js'),
    userConfig(home, servers) {
      mkdirSync(join(home, '.codex'), { recursive: true });
      let toml = 'check_for_update_on_startup = false\n\n[analytics]\nenabled = false\n';
      for (const [name, s] of Object.entries(servers)) toml += `\n[mcp_servers.${name}]\nurl = ${JSON.stringify(s.url)}\n`;
      writeFileSync(join(home, '.codex', 'config.toml'), toml);
    },
    userServer: (url) => ({ url }),
    async list(home, ctx) {
      mkdirSync(join(home, '.codex'), { recursive: true });
      const env = baseEnv(home, ctx.tls, { CODEX_HOME: join(home, '.codex'), CODEX_CA_CERTIFICATE: ctx.tls.ca });
      const listed = runCli(process.execPath, [this.bin(), 'mcp', 'list', '--json'], env, ctx.work);
      let config = [];
      try {
        config = JSON.parse(listed.stdout);
      } catch {
        // reported below as "not listed"
      }
      const live = await codexAppServer(process.execPath, [this.bin(), 'app-server'], env, ctx.work);
      const statuses = live.result?.data ?? [];
      const status = (name) => {
        const c = config.find((s) => s.name === name);
        const s = statuses.find((x) => x.name === name);
        const enabled = c ? (c.enabled ? 'enabled' : `disabled: ${c.disabled_reason}`) : 'absent';
        const where = c?.transport?.url ?? c?.transport?.command ?? '';
        const tools = s ? Object.keys(s.tools ?? {}).join(',') : '';
        const line = `mcp list --json: ${name} ${where} ${enabled}; mcpServerStatus/list: ${s
          ? `serverInfo=${s.serverInfo?.name ?? 'null'} tools=[${tools}] toolsError=${s.toolsError ?? 'null'}`
          : 'absent'}`;
        return {
          line,
          listed: !!c,
          enabled: !!c?.enabled,
          connected: !!c?.enabled && !!s?.serverInfo && !s?.toolsError && tools.includes('whoami'),
        };
      };
      return { runs: [listed, live], status };
    },
  },
  gemini: {
    name: 'Gemini CLI',
    bin: () => join(MODULES, '@google/gemini-cli/bundle/gemini.js'),
    userConfig(home, servers, ctx) {
      mkdirSync(join(home, '.gemini'), { recursive: true });
      writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        mcpServers: servers,
      }, null, 2));
      // The user trusts the folder they work in: in an untrusted one Gemini CLI turns every
      // MCP server off, approved or not.
      writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [ctx.work]: 'TRUST_FOLDER' }));
    },
    userServer: (url) => ({ httpUrl: url }),
    async list(home, ctx) {
      const env = baseEnv(home, ctx.tls, { NODE_EXTRA_CA_CERTS: ctx.tls.ca, GEMINI_CLI_NO_RELAUNCH: 'true' });
      const r = runCli(process.execPath, [this.bin(), 'mcp', 'list'], env, ctx.work);
      const status = (name) => {
        // Gemini CLI prints the list through its logger, on stderr.
        const line = lineFor(`${r.stdout}\n${r.stderr}`, name);
        return { line, listed: !!line, connected: !!line && /✓ .* - Connected/.test(line), blocked: !!line && /Blocked/.test(line) };
      };
      return { runs: [r], status };
    },
  },
};

async function harness(h, ctx) {
  const cli = CLIS[h];
  const t = Date.now();
  const timing = {};
  say(`\n== ${cli.name}`);
  const rendered = ctx.rendered[h];
  for (const f of rendered.files) say(`  rendered ${f.scope} ${f.file.replace(`${T}/`, '')} -> ${f.linux ?? '(no linux path)'}`);
  for (const w of rendered.warnings) say(`  ${w}`);
  const userFiles = rendered.files.filter((f) => f.scope === 'user');
  check(h, 'render', 'allowlist mode renders managed files only', userFiles.length === 0 && rendered.files.length > 0,
    rendered.files.map((f) => `${f.scope}: ${f.linux}`).join('\n'));

  const scenario = async (name, { managed, user }) => {
    const home = freshHome(h, name);
    cli.userConfig(home, user, ctx);
    if (managed) installManaged(h, rendered);
    else removeManaged(h);
    const before = readLog(ctx.log).length;
    const s = Date.now();
    const l = await cli.list(home, ctx);
    timing[name] = Date.now() - s;
    const entries = readLog(ctx.log).slice(before);
    removeManaged(h);
    say(`  [${name}] ${l.runs.map((r) => `${r.cmd} (${secs(r.ms)}, exit ${r.status ?? r.error ?? 0})`).join('; ')}`);
    for (const r of l.runs) {
      if (r.error || (r.status !== undefined && r.status !== 0 && r.status !== null)) {
        say(`    ${r.error ?? ''}\n    stdout: ${r.stdout.slice(0, 2000)}\n    stderr: ${r.stderr.slice(0, 2000)}`);
      }
    }
    return { ...l, entries };
  };

  // 1. Control: no managed file; the user's own server connects, so blocking it later is the
  //    managed files' doing and the assertion can fail.
  {
    const r = await scenario('control', { managed: false, user: { mine: cli.userServer(`${ctx.base}${USER_PATH}`) } });
    const mine = r.status('mine');
    const hits = requestsTo(r.entries, USER_PATH);
    check(h, 'control', 'without managed files, the user\'s own server connects (control)', mine.connected && hits.length > 0,
      `${mine.line ?? 'mine: not listed'}\nrequests to ${USER_PATH}: ${hits.length}`);
  }

  // 2. Managed files installed; the user's own server is still in their config.
  {
    const r = await scenario('managed', { managed: true, user: { mine: cli.userServer(`${ctx.base}${USER_PATH}`) } });
    const approved = r.status('approved');
    const local = r.status('local');
    const mine = r.status('mine');
    const toApproved = requestsTo(r.entries, APPROVED_PATH);
    const spawned = requestsTo(r.entries, 'stdio:local');
    const toMine = requestsTo(r.entries, USER_PATH);
    check(h, 'managed', 'approved remote server (https) loads and connects',
      approved.connected && toApproved.some((e) => e.rpc === 'initialize'),
      `${approved.line ?? 'approved: not listed'}\nrequests to ${APPROVED_PATH}: ${toApproved.map((e) => e.rpc ?? e.method).join(', ') || 'none'}`);
    check(h, 'managed', 'approved local server (stdio) loads and connects', local.connected && spawned.length > 0,
      `${local.line ?? 'local: not listed'}\nstdio server starts: ${spawned.length}`);
    check(h, 'managed', 'server the user added is blocked (not connected, no request reaches it)',
      !mine.connected && toMine.length === 0,
      `${mine.line ?? 'mine: not listed'}\nrequests to ${USER_PATH}: ${toMine.length}`);
    const helperRuns = existsSync(ctx.helperLog) ? readFileSync(ctx.helperLog, 'utf8').split('\n').filter(Boolean) : [];
    if (h === 'gemini') {
      const warned = rendered.warnings.find((w) => /header helper/.test(w));
      check(h, 'managed', 'token helper not rendered (Gemini CLI has no header helper) and the render says so',
        !!warned && toApproved.every((e) => !e.headers?.authorization), warned ?? 'no warning about the helper');
    } else {
      const verdicts = toApproved.map((e) => tokenVerdict(e.headers?.authorization, ctx));
      check(h, 'managed', 'portcullis-cli token reaches the server: a realm-signed token for exactly this server (aud, mcp_server), at most 5 minutes',
        toApproved.length > 0 && verdicts.every((v) => v.ok),
        `${[...new Set(verdicts.map((v) => v.why))].join('\n')}\nhelper runs so far: ${helperRuns.length} (${helperRuns[0] ?? 'none'})`);
    }
    const envValues = headerEvidence(toApproved, 'x-portcullis-env');
    check(h, 'managed', `\${VAR} header reaches the server (X-Portcullis-Env: ${ENV_NONCE})`,
      toApproved.length > 0 && toApproved.every((e) => e.headers?.['x-portcullis-env'] === ENV_NONCE),
      `x-portcullis-env on ${toApproved.length} request(s): ${envValues.join(', ') || 'none'}`);
  }

  // 3. The user redefines `approved` in their own config to point elsewhere.
  {
    const r = await scenario('hijack', { managed: true, user: { approved: cli.userServer(`${ctx.base}${HIJACK_PATH}`) } });
    const approved = r.status('approved');
    const toHijack = requestsTo(r.entries, HIJACK_PATH);
    check(h, 'hijack', 'user\'s own "approved" pointing elsewhere never reaches its URL',
      toHijack.length === 0,
      `${approved.line ?? 'approved: not listed'}\nrequests to ${HIJACK_PATH}: ${toHijack.length}`);
  }
  timing.total = Date.now() - t;
  return timing;
}

async function inside(o) {
  T = mkdtempSync(join(tmpdir(), 'portcullis-harness-'));
  const etcMode = setupEtc();
  say(`run directory: ${T}\n/etc: ${etcMode}`);
  ENV_NONCE = `env-${randomBytes(8).toString('hex')}`;
  const tls = certificates();
  const log = join(T, 'requests.jsonl');
  const helperLog = join(T, 'helper.log');
  const port = await startHttps(tls, log);
  const base = `https://127.0.0.1:${port}`;
  say(`loopback MCP servers: ${base}/{approved,user,hijack}/mcp and a stdio server`);
  PORTCULLIS_URL = `http://127.0.0.1:${await freePort()}`;
  mkdirSync(join(T, 'site', 'pkg'), { recursive: true });
  writeFileSync(join(T, 'site', 'pkg', 'app.js'), '');
  const r0 = Date.now();
  const { data, rendered } = registry(o, { port });
  const renderMs = Date.now() - r0;
  say(`portcullis migrate, registry apply, publish, render x${o.harnesses.length}: ${secs(renderMs)}`);
  // Portcullis serving the realm, and Ada signed in with portcullis-cli (as on her laptop).
  const cliHome = join(T, 'cli-home');
  const cliEnv = {
    PATH: process.env.PATH,
    HOME: cliHome,
    XDG_CONFIG_HOME: join(cliHome, 'config'),
    XDG_CACHE_HOME: join(cliHome, 'cache'),
    PORTCULLIS_CLI_CREDENTIALS: 'file',
  };
  const cliBin = join(dirname(o.bin), 'portcullis-cli');
  if (!existsSync(cliBin)) die(`${cliBin} is missing: cargo build -p portcullis-cli`);
  await startPortcullis(o, data);
  const s0 = Date.now();
  await signIn(cliBin, cliEnv);
  say(`portcullis serve, portcullis-cli login (Ada approves in a scripted browser): ${secs(Date.now() - s0)}`);
  const jwks = await (await fetch(`${PORTCULLIS_URL}/realms/default/jwks`)).json();
  // The token helper the rendered files name: portcullis-cli with Ada's sign-in, noting each run.
  const helper = join(T, 'bin', 'portcullis-cli');
  mkdirSync(dirname(helper), { recursive: true });
  const exports = Object.entries(cliEnv).filter(([k]) => k !== 'PATH').map(([k, v]) => `${k}='${v}'`).join(' ');
  writeFileSync(helper, `#!/bin/sh\necho "$*" >> '${helperLog}'\nexec env ${exports} '${cliBin}' "$@"\n`);
  chmodSync(helper, 0o755);
  const work = join(T, 'work');
  mkdirSync(work);
  const ctx = { tls, log, helperLog, base, rendered, work, jwks, approvedUrl: `${base}${APPROVED_PATH}` };
  const timings = {};
  try {
    for (const h of o.harnesses) timings[h] = await harness(h, ctx);
  } finally {
    for (const c of children) c.kill('SIGTERM');
    for (const h of HARNESSES) if (createdEtc.has(ETC_DIRS[h])) removeManaged(h);
  }
  const failed = results.filter((r) => !r.ok);
  const installMs = Number(process.env.PORTCULLIS_HARNESS_INSTALL_MS ?? 0);
  say('\n== Timings');
  say(`  npm install: ${secs(installMs)}; render: ${secs(renderMs)}`);
  for (const [h, t] of Object.entries(timings)) {
    say(`  ${CLIS[h].name}: ${secs(t.total)} (control ${secs(t.control)}, managed ${secs(t.managed)}, hijack ${secs(t.hijack)})`);
  }
  say(`  whole run (from start, install included): ${secs(Date.now() - started + installMs)}`);
  say(`\n== ${results.length - failed.length}/${results.length} assertions passed`);
  for (const f of failed) say(`  FAIL ${f.harness} [${f.scenario}] ${f.assertion}`);
  if (o.report) {
    writeFileSync(o.report, JSON.stringify({ results, timings, installMs, renderMs, totalMs: Date.now() - started + installMs }, null, 2));
  }
  if (o.keep) say(`kept ${T}`);
  else rmSync(T, { recursive: true, force: true });
  process.exit(failed.length ? 1 : 0);
}

const opts = parseArgs(process.argv.slice(2));
if (INSIDE) {
  inside(opts).catch((e) => {
    process.stderr.write(`harnesses: ${e.stack ?? e}\n`);
    for (const c of children) c.kill('SIGTERM');
    if (T && !opts.keep) rmSync(T, { recursive: true, force: true });
    else if (T) say(`kept ${T}`);
    process.exit(2);
  });
} else {
  outside(opts);
}
