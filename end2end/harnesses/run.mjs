#!/usr/bin/env node
// Proves the rendered managed files with the real CLIs: Claude Code, Codex and Gemini CLI
// (pinned in package.json) read what `portcullis registry render` writes, installed where it
// says, and against loopback MCP servers show that
//   - the approved servers load and connect (a remote one over TLS, a local stdio one),
//   - a server the user added to their own configuration is blocked (and, as a control, does
//     connect when no managed file is installed),
//   - a user's redefinition of an approved server's name cannot point it elsewhere,
//   - the token helper's header (headersHelper / http_headers_helper) reaches the server.
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
import { randomBytes } from 'node:crypto';
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
  say('npm ci --ignore-scripts ...');
  const r = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: HERE,
    stdio: 'inherit',
  });
  if (r.status !== 0) die('npm ci failed');
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

function portcullis(o, data, args) {
  const r = sh(o.bin, args, { env: { PATH: process.env.PATH, HOME: T, PORTCULLIS_DATA_DIR: data } });
  return r.stdout + r.stderr;
}

function registry(o, { port, log, helper }) {
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
        url: `https://127.0.0.1:${port}/approved/mcp`,
        headers: { 'X-Portcullis-Env': '${PORTCULLIS_TEST_ENV}' },
        auth: { mode: 'portcullis' },
        rings: ['ring0'],
      },
      {
        id: 'local',
        title: 'Approved local server',
        command: { path: process.execPath, args: [join(HERE, 'mcp-server.mjs'), 'stdio', 'local', log] },
        rings: ['ring0'],
      },
    ],
  };
  const file = join(T, 'policy.json');
  writeFileSync(file, JSON.stringify(policy, null, 2));
  portcullis(o, data, ['registry', 'apply', '--file', file]);
  portcullis(o, data, ['registry', 'publish']);
  const out = {};
  for (const h of o.harnesses) {
    const dir = join(T, 'rendered', h);
    const text = portcullis(o, data, ['registry', 'render', '--harness', h, '--ring', 'ring0', '--token-helper', `${helper} {id}`, '--out', dir]);
    writeFileSync(join(T, 'rendered', `${h}.txt`), text);
    out[h] = parseRender(text);
  }
  return out;
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
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
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
let HELPER_NONCE;

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
    const helperValues = headerEvidence(toApproved, 'x-portcullis-test');
    const helperRuns = existsSync(ctx.helperLog) ? readFileSync(ctx.helperLog, 'utf8').split('\n').filter(Boolean) : [];
    if (h === 'gemini') {
      const warned = rendered.warnings.find((w) => /header helper/.test(w));
      check(h, 'managed', 'token helper not rendered (Gemini CLI has no header helper) and the render says so',
        !!warned && helperValues.length === 0, warned ?? 'no warning about the helper');
    } else {
      check(h, 'managed', `token helper header reaches the server (X-Portcullis-Test: ${HELPER_NONCE})`,
        toApproved.length > 0 && toApproved.every((e) => e.headers?.['x-portcullis-test'] === HELPER_NONCE),
        `x-portcullis-test on ${toApproved.length} request(s): ${helperValues.join(', ') || 'none'}; helper runs so far: ${helperRuns.length}`);
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
  HELPER_NONCE = `helper-${randomBytes(8).toString('hex')}`;
  const tls = certificates();
  const log = join(T, 'requests.jsonl');
  const helperLog = join(T, 'helper.log');
  // The token helper: prints the header map both CLIs expect, and notes each run.
  const helper = join(T, 'bin', 'portcullis-test-token');
  mkdirSync(dirname(helper), { recursive: true });
  writeFileSync(helper, `#!/bin/sh\necho "$1 $CLAUDE_CODE_MCP_SERVER_NAME" >> '${helperLog}'\nprintf '{"X-Portcullis-Test": "%s"}\\n' '${HELPER_NONCE}'\n`);
  chmodSync(helper, 0o755);
  const port = await startHttps(tls, log);
  const base = `https://127.0.0.1:${port}`;
  say(`loopback MCP servers: ${base}/{approved,user,hijack}/mcp and a stdio server`);
  const r0 = Date.now();
  const rendered = registry(o, { port, log, helper });
  const renderMs = Date.now() - r0;
  say(`portcullis migrate, registry apply, publish, render x${o.harnesses.length}: ${secs(renderMs)}`);
  const work = join(T, 'work');
  mkdirSync(work);
  const ctx = { tls, log, helperLog, base, rendered, work };
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
