//! `cargo xtask bench [tokens|flood|soak|scale]`: benchmarks against the release server.
//!
//! - `tokens` (the default): `client_credentials` throughput for ES256, RS256 and EdDSA
//!   resources at 16 and 64 keep-alive connections (wrk, 10 s each): tokens/s, the server's CPU
//!   (cores used, CPU time per token), and, measured in the same run with the same key, the raw
//!   single-core signing rate next to `openssl speed` of the same algorithm. Ratios are
//!   `tokens/s ÷ (rate × cores used)`: 100% means the server spends its CPU only on signing.
//! - `exchange`: token exchange (RFC 8693: a machine client's own ES256 token traded for a
//!   token at another ES256 resource) next to `client_credentials` in the same run, at 16 and
//!   64 connections: tokens/s and CPU per token, and the ratio (the goal is at least 80%).
//! - `flood`: token throughput and latency alone, then while wrk floods `/login` with wrong
//!   passwords from ever-new addresses (through a trusted-proxy header, so none is throttled and
//!   every attempt costs an Argon2 hash).
//! - `soak`: token load for `PORTCULLIS_SOAK_SECS` (default 180) with nobody scraping
//!   `/metrics`, sampling the server's resident memory every 10 s.
//! - `scale`: 100,000 clients, 100,000 agents and 1,000,000 audit rows on SQLite and on
//!   PostgreSQL (`PORTCULLIS_BENCH_POSTGRES_URL`, default the local server), then p50/p95 of the
//!   console's list and search server functions (first page, a middle page, a search).
use anyhow::{Context as _, bail};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const PORT: u16 = 3300;
const SECONDS: u32 = 10;
const ADMIN_PASSWORD: &str = "bench-admin-password";
/// The audit list's filter, empty, as a server-function form.
const AUDIT_QUERY: &str = "query%5Brealm%5D=&query%5Baction%5D=&query%5Bactor%5D=&query%5Btarget%5D=&query%5Bfrom%5D=&query%5Bto%5D=";

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A throwaway installation: its data directory and configuration.
struct Install {
    data: String,
    database_url: Option<String>,
}

impl Install {
    fn new(name: &str, database_url: Option<String>) -> anyhow::Result<Self> {
        let data = crate::tempdir_path(name)?;
        // The benchmarks measure protocol endpoints and serve no console: an empty site stands
        // in for the console build `serve` insists on.
        std::fs::create_dir_all(format!("{data}/site/pkg"))?;
        std::fs::write(format!("{data}/site/pkg/app.js"), "")?;
        std::fs::write(
            format!("{data}/portcullis.toml"),
            "[http]\ntrusted_proxies = [\"127.0.0.1/32\"]\n",
        )?;
        Ok(Self { data, database_url })
    }

    fn command(&self) -> Command {
        let mut c = Command::new("target/release/portcullis");
        c.arg("--config")
            .arg(format!("{}/portcullis.toml", self.data))
            .env("PORTCULLIS_DATA_DIR", &self.data)
            .env("PORTCULLIS_HTTP__BIND", format!("127.0.0.1:{PORT}"))
            .env("PORTCULLIS_PUBLIC_URL", format!("http://127.0.0.1:{PORT}"))
            .env("PORTCULLIS_LOG__FILTER", "warn")
            .env(
                "PORTCULLIS_CONSOLE__SITE_DIR",
                format!("{}/site", self.data),
            );
        if let Some(url) = &self.database_url {
            c.env("PORTCULLIS_DATABASE__URL", url);
        }
        c
    }

    fn cli(&self, args: &[&str]) -> anyhow::Result<String> {
        self.cli_with_stdin(args, "")
    }

    fn cli_with_stdin(&self, args: &[&str], stdin: &str) -> anyhow::Result<String> {
        use std::io::Write as _;
        let mut child = self
            .command()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("Failed to run portcullis")?;
        if let Some(mut input) = child.stdin.take() {
            input.write_all(stdin.as_bytes())?;
        }
        let out = child.wait_with_output()?;
        if !out.status.success() {
            bail!(
                "portcullis {args:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn serve(&self) -> anyhow::Result<Server> {
        let server = Server(
            self.command()
                .arg("serve")
                .stdout(Stdio::null())
                .spawn()
                .context("Failed to start the server")?,
        );
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", PORT)).is_err() {
            if Instant::now() > deadline {
                bail!("the server did not start");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(server)
    }

    /// A resource `id` at `https://{id}.bench.example/mcp` signed with `alg`.
    fn resource(&self, id: &str, alg: &str) -> anyhow::Result<()> {
        let uri = format!("https://{id}.bench.example/mcp");
        self.cli(&[
            "resources",
            "create",
            "--id",
            id,
            "--name",
            id,
            "--uri",
            &uri,
            "--scopes",
            "tools:call",
            "--alg",
            alg,
        ])?;
        Ok(())
    }

    /// Lets `client` get tokens for resource `id` (a client gets tokens only where granted).
    fn grant(&self, client: &str, id: &str) -> anyhow::Result<()> {
        self.cli(&["clients", "grant", "--client-id", client, "--resource", id])?;
        Ok(())
    }

    /// A `client_secret_basic` client; returns its `Authorization` header value.
    fn client(&self, id: &str) -> anyhow::Result<String> {
        let out = self.cli(&[
            "clients",
            "create",
            "--client-id",
            id,
            "--name",
            id,
            "--scope",
            "tools:call",
        ])?;
        let secret = out
            .lines()
            .find_map(|l| l.strip_prefix("client_secret: "))
            .context("no secret printed")?;
        use base64::Engine as _;
        Ok(format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"))
        ))
    }
}

impl Drop for Install {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.data);
    }
}

/// User + system CPU seconds of a process.
fn cpu_seconds(pid: u32) -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).context("bad stat")?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f[11].parse::<f64>()? + f[12].parse::<f64>()?;
    Ok(ticks / 100.0)
}

/// Resident memory of a process, in MiB.
fn rss_mib(pid: u32) -> anyhow::Result<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .context("no VmRSS")?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()?;
    Ok(kib / 1024.0)
}

struct Run {
    rps: f64,
    cores: f64,
    cpu_us_per_token: f64,
    p99: String,
}

/// The wrk script of a token request for `resource` with `auth`.
fn token_script(dir: &str, resource: &str, auth: &str) -> anyhow::Result<String> {
    let uri = format!("https%3A%2F%2F{resource}.bench.example%2Fmcp");
    let script = format!("{dir}/{resource}.lua");
    std::fs::write(
        &script,
        format!(
            "wrk.method = \"POST\"\nwrk.body = \"grant_type=client_credentials&scope=tools%3Acall&resource={uri}\"\nwrk.headers[\"Content-Type\"] = \"application/x-www-form-urlencoded\"\nwrk.headers[\"Authorization\"] = \"{auth}\"\n"
        ),
    )?;
    Ok(script)
}

fn wrk_args(script: &str, threads: u32, conns: u32, seconds: u32, path: &str) -> Vec<String> {
    vec![
        format!("-t{threads}"),
        format!("-c{conns}"),
        format!("-d{seconds}s"),
        "--latency".into(),
        "-s".into(),
        script.into(),
        format!("http://127.0.0.1:{PORT}{path}"),
    ]
}

fn parse_wrk(text: &str) -> anyhow::Result<(f64, String)> {
    let rps: f64 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Requests/sec:"))
        .context("wrk printed no Requests/sec")?
        .trim()
        .parse()?;
    let p99 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("99%"))
        .map_or_else(|| "?".into(), |v| v.trim().to_owned());
    Ok((rps, p99))
}

fn wrk(script: &str, conns: u32, pid: u32) -> anyhow::Result<Run> {
    let cpu0 = cpu_seconds(pid)?;
    let t0 = Instant::now();
    let out = Command::new("wrk")
        .args(wrk_args(script, 2, conns, SECONDS, "/realms/default/token"))
        .output()
        .context("Failed to run wrk")?;
    let wall = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds(pid)? - cpu0;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if text.contains("Non-2xx") {
        bail!("some token requests failed:\n{text}");
    }
    let (rps, p99) = parse_wrk(&text)?;
    Ok(Run {
        rps,
        cores: cpu / wall,
        cpu_us_per_token: cpu / (rps * wall) * 1e6,
        p99,
    })
}

fn wrk_warmup(script: &str) -> anyhow::Result<()> {
    let out = Command::new("wrk")
        .args(wrk_args(script, 1, 4, 1, "/realms/default/token"))
        .output()?;
    if String::from_utf8_lossy(&out.stdout).contains("Non-2xx") {
        bail!(
            "warm-up requests failed: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    Ok(())
}

/// Installs a Debian package when `binary` is missing.
fn ensure(binary: &str, package: &str) -> anyhow::Result<()> {
    if Command::new(binary).arg("--version").output().is_ok() {
        return Ok(());
    }
    crate::run(Command::new("sh").args([
        "-c",
        &format!(
            "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq {package}"
        ),
    ]))
}

/// `openssl speed` of one algorithm on one core: signatures per second.
fn openssl_rate(alg: &str) -> anyhow::Result<f64> {
    let name = match alg {
        "ES256" => "ecdsap256",
        "RS256" => "rsa2048",
        "EdDSA" => "ed25519",
        other => bail!("no openssl name for {other}"),
    };
    let out = Command::new("openssl")
        .args(["speed", "-seconds", "3", name])
        .stderr(Stdio::null())
        .output()
        .context("Failed to run openssl speed")?;
    let text = String::from_utf8_lossy(&out.stdout);
    // The last line: "<name> … <sign time>s <verify time>s <sign/s> <verify/s>".
    let numbers: Vec<f64> = text
        .lines()
        .last()
        .context("openssl printed nothing")?
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    numbers
        .len()
        .checked_sub(2)
        .map(|i| numbers[i])
        .context("unexpected openssl speed output")
}

pub fn run(which: Option<&str>) -> anyhow::Result<()> {
    if which == Some("guard") {
        // The resource-server guard alone: no server, no database, no load generator.
        return crate::run(crate::cargo().args([
            "run",
            "--release",
            "-p",
            "portcullis-guard",
            "--example",
            "verify_bench",
        ]));
    }
    if which == Some("gateway") {
        // The MCP gateway in one process: an upstream, the server and MCP clients on loopback.
        return crate::run(crate::cargo().args([
            "run",
            "--release",
            "-p",
            "server",
            "--example",
            "gateway_bench",
        ]));
    }
    ensure("wrk", "wrk")?;
    crate::run(crate::cargo().args(["build", "--release", "-p", "server", "--bin", "portcullis"]))?;
    match which.unwrap_or("tokens") {
        "tokens" => tokens(),
        "flood" => flood(),
        "soak" => soak(),
        "scale" => scale(),
        "codes" => codes(),
        "registry" => registry(),
        "exchange" => exchange(),
        other => bail!(
            "unknown benchmark {other}; use tokens, exchange, flood, soak, scale, codes, registry, guard or gateway"
        ),
    }
}

fn tokens() -> anyhow::Result<()> {
    ensure("openssl", "openssl")?;
    let install = Install::new("bench", None)?;
    install.cli(&["migrate"])?;
    let algs = ["ES256", "RS256", "EdDSA"];
    for alg in algs {
        install.resource(&alg.to_ascii_lowercase(), alg)?;
    }
    let auth = install.client("bench")?;
    for alg in algs {
        install.grant("bench", &alg.to_ascii_lowercase())?;
    }
    let mut raw = Vec::new();
    for alg in algs {
        let out = install.cli(&["keys", "bench-sign", "--alg", alg, "--seconds", "3"])?;
        let rate: f64 = out
            .trim()
            .strip_prefix("signatures/s: ")
            .context("bench-sign output")?
            .parse()?;
        raw.push((alg, rate, openssl_rate(alg)?));
    }
    let server = install.serve()?;
    let pid = server.0.id();
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    println!(
        "\nclient_credentials, {SECONDS} s per run, {cores} cores, wrk -t2 on the same machine\n"
    );
    println!(
        "| alg | connections | tokens/s | server cores used | CPU µs/token | p99 latency | raw signs/s (1 core) | openssl speed (1 core) | ratio to raw | ratio to openssl |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (alg, rate, openssl) in &raw {
        let script = token_script(&install.data, &alg.to_ascii_lowercase(), &auth)?;
        wrk_warmup(&script)?;
        for conns in [16, 64] {
            let r = wrk(&script, conns, pid)?;
            println!(
                "| {alg} | {conns} | {:.0} | {:.2} | {:.0} | {} | {:.0} | {:.0} | {:.0}% | {:.0}% |",
                r.rps,
                r.cores,
                r.cpu_us_per_token,
                r.p99,
                rate,
                openssl,
                100.0 * r.rps / (rate * r.cores),
                100.0 * r.rps / (openssl * r.cores)
            );
        }
    }
    Ok(())
}

/// Token exchange next to `client_credentials`: the same client, key type and server.
fn exchange() -> anyhow::Result<()> {
    let install = Install::new("bench-exchange", None)?;
    install.cli(&["migrate"])?;
    install.resource("source", "ES256")?;
    install.resource("target", "ES256")?;
    let out = install.cli(&[
        "clients",
        "create",
        "--client-id",
        "bench",
        "--name",
        "bench",
        "--scope",
        "tools:call",
        "--token-exchange",
    ])?;
    let secret = out
        .lines()
        .find_map(|l| l.strip_prefix("client_secret: "))
        .context("no secret printed")?;
    use base64::Engine as _;
    let auth = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("bench:{secret}"))
    );
    install.grant("bench", "source")?;
    install.grant("bench", "target")?;
    let server = install.serve()?;
    let pid = server.0.id();
    // The subject: the client's own token for the source (it lives longer than the runs).
    let answer = curl(&[
        "-X",
        "POST",
        "-H",
        &format!("Authorization: {auth}"),
        "-d",
        "grant_type=client_credentials&scope=tools%3Acall&resource=https%3A%2F%2Fsource.bench.example%2Fmcp",
        &format!("http://127.0.0.1:{PORT}/realms/default/token"),
    ])?;
    // A JWT holds no quote: the text between the field's quotes is the token.
    let subject = answer
        .split_once("\"access_token\":\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(token, _)| token.to_owned())
        .with_context(|| format!("no subject token: {answer}"))?;
    let direct = token_script(&install.data, "target", &auth)?;
    let exchanged = format!("{}/exchange.lua", install.data);
    std::fs::write(
        &exchanged,
        format!(
            "wrk.method = \"POST\"\nwrk.body = \"grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&subject_token={subject}&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token&resource=https%3A%2F%2Ftarget.bench.example%2Fmcp\"\nwrk.headers[\"Content-Type\"] = \"application/x-www-form-urlencoded\"\nwrk.headers[\"Authorization\"] = \"{auth}\"\n"
        ),
    )?;
    wrk_warmup(&direct)?;
    wrk_warmup(&exchanged)?;
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    println!(
        "\ntoken exchange next to client_credentials (ES256 both), {SECONDS} s per run, {cores} cores, wrk -t2 on the same machine\n"
    );
    println!(
        "| connections | client_credentials tokens/s | CPU µs/token | exchange tokens/s | CPU µs/token | exchange p99 | exchange ÷ client_credentials |"
    );
    println!("|---|---|---|---|---|---|---|");
    for conns in [16, 64] {
        let d = wrk(&direct, conns, pid)?;
        let e = wrk(&exchanged, conns, pid)?;
        println!(
            "| {conns} | {:.0} | {:.0} | {:.0} | {:.0} | {} | {:.0}% |",
            d.rps,
            d.cpu_us_per_token,
            e.rps,
            e.cpu_us_per_token,
            e.p99,
            100.0 * e.rps / d.rps
        );
    }
    Ok(())
}

fn flood() -> anyhow::Result<()> {
    let install = Install::new("bench-flood", None)?;
    install.cli(&["migrate"])?;
    install.cli_with_stdin(
        &[
            "admin",
            "create",
            "--email",
            "admin@bench.example",
            "--name",
            "Admin",
        ],
        &format!("{ADMIN_PASSWORD}\n"),
    )?;
    install.resource("es256", "ES256")?;
    let auth = install.client("bench")?;
    install.grant("bench", "es256")?;
    let tokens = token_script(&install.data, "es256", &auth)?;
    let logins = format!("{}/login.lua", install.data);
    // Every attempt from a new address for a new account: nothing is throttled, so every one
    // costs an Argon2 verification.
    std::fs::write(
        &logins,
        "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/x-www-form-urlencoded\"\nwrk.headers[\"Sec-Fetch-Site\"] = \"same-origin\"\nrequest = function()\n  wrk.headers[\"X-Forwarded-For\"] = math.random(1, 223) .. \".\" .. math.random(0, 255) .. \".\" .. math.random(0, 255) .. \".\" .. math.random(1, 254)\n  return wrk.format(nil, \"/login\", nil, \"email=u\" .. math.random(1, 100000000) .. \"%40bench.example&password=a-wrong-password-guess\")\nend\n",
    )?;
    let server = install.serve()?;
    let pid = server.0.id();
    wrk_warmup(&tokens)?;
    let alone = wrk(&tokens, 16, pid)?;
    let flood = Command::new("wrk")
        .args(wrk_args(&logins, 1, 64, SECONDS + 4, "/login"))
        .stdout(Stdio::piped())
        .spawn()
        .context("Failed to start the login flood")?;
    std::thread::sleep(Duration::from_secs(2));
    let during = wrk(&tokens, 16, pid)?;
    let flood = flood.wait_with_output()?;
    let (logins_per_sec, login_p99) = parse_wrk(&String::from_utf8_lossy(&flood.stdout))?;
    println!(
        "\nES256 client_credentials at 16 connections, {SECONDS} s, with and without a sign-in flood (64 connections, wrong passwords)\n"
    );
    println!("| run | tokens/s | token p99 | server cores used | sign-ins/s | sign-in p99 |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| alone | {:.0} | {} | {:.2} | – | – |",
        alone.rps, alone.p99, alone.cores
    );
    println!(
        "| during the flood | {:.0} | {} | {:.2} | {logins_per_sec:.0} | {login_p99} |",
        during.rps, during.p99, during.cores
    );
    Ok(())
}

fn soak() -> anyhow::Result<()> {
    let secs: u64 = std::env::var("PORTCULLIS_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(180);
    let install = Install::new("bench-soak", None)?;
    install.cli(&["migrate"])?;
    install.resource("es256", "ES256")?;
    let auth = install.client("bench")?;
    install.grant("bench", "es256")?;
    let tokens = token_script(&install.data, "es256", &auth)?;
    let server = install.serve()?;
    let pid = server.0.id();
    wrk_warmup(&tokens)?;
    let start_rss = rss_mib(pid)?;
    let load = Command::new("wrk")
        .args(wrk_args(
            &tokens,
            2,
            16,
            u32::try_from(secs)?,
            "/realms/default/token",
        ))
        .stdout(Stdio::piped())
        .spawn()
        .context("Failed to start wrk")?;
    println!(
        "\nES256 client_credentials for {secs} s at 16 connections; nobody scrapes /metrics\n"
    );
    println!("| elapsed | resident memory |");
    println!("|---|---|");
    println!("| 0 s | {start_rss:.1} MiB |");
    let t0 = Instant::now();
    let mut samples = vec![start_rss];
    while t0.elapsed().as_secs() + 10 <= secs {
        std::thread::sleep(Duration::from_secs(10));
        let rss = rss_mib(pid)?;
        samples.push(rss);
        println!("| {} s | {rss:.1} MiB |", t0.elapsed().as_secs());
    }
    let out = load.wait_with_output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (rps, _) = parse_wrk(&text)?;
    let end = rss_mib(pid)?;
    println!(
        "\n{:.0} tokens/s, {:.1} M tokens in all; memory {start_rss:.1} → {end:.1} MiB (max {:.1})",
        rps,
        rps * secs as f64 / 1e6,
        samples.iter().copied().fold(0.0, f64::max)
    );
    Ok(())
}

/// The SQL that seeds a realm with `n` clients, `n` agents and `audit` audit rows.
fn seed_sql(postgres: bool, realm_id: &str, n: u32, audit: u32) -> String {
    let series = |count: u32| {
        if postgres {
            format!("FROM generate_series(1, {count}) AS s(i)")
        } else {
            format!(
                "FROM (WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < {count}) SELECT i FROM s)"
            )
        }
    };
    let pad = |e: &str| {
        if postgres {
            format!("lpad(({e})::text, 6, '0')")
        } else {
            format!("printf('%06d', {e})")
        }
    };
    let text = |e: &str| {
        if postgres {
            format!("({e})::text")
        } else {
            e.to_owned()
        }
    };
    let t = if postgres { "TRUE" } else { "1" };
    let f = if postgres { "FALSE" } else { "0" };
    let clients = format!(
        "INSERT INTO clients (id, realm_id, client_id, name, auth_method, grant_types, scope, metadata, enabled, created_at, updated_at) \
         SELECT 'cli_bench' || {i}, '{realm_id}', 'client-' || {p}, 'Bench client number ' || {i}, 'client_secret_basic', 'client_credentials', 'tools:call', '{{}}', {t}, 1700000000, 1700000000 {s};",
        i = text("i"),
        p = pad("i"),
        s = series(n)
    );
    let agents = format!(
        "INSERT INTO agents (id, realm_id, name, owner, description, roles, expires_at, disabled, created_at, updated_at) \
         SELECT 'agt_bench' || {i}, '{realm_id}', 'agent-' || {p}, 'owner' || {m} || '@bench.example', '', CASE WHEN i % 3 = 0 THEN 'mcp:tools reports' ELSE 'reports' END, CASE WHEN i % 4 = 0 THEN 1900000000 + i ELSE NULL END, {f}, 1700000000, 1700000000 {s};",
        i = text("i"),
        p = pad("i"),
        m = text("i % 500"),
        s = series(n)
    );
    let audit = format!(
        "INSERT INTO audit_events (realm_id, occurred_at, actor, action, target, outcome, details) \
         SELECT '{realm_id}', 1700000000 + i, 'user' || {m} || '@bench.example', CASE i % 4 WHEN 0 THEN 'client.create' WHEN 1 THEN 'client.update' WHEN 2 THEN 'token.revoke' ELSE 'session.login' END, 'client:client-' || {p}, 'success', '{{}}' {s};",
        m = text("i % 1000"),
        p = pad(&format!("i % {n}")),
        s = series(audit)
    );
    format!("{clients}\n{agents}\n{audit}\n")
}

/// Signs in and returns curl's cookie jar path.
fn sign_in(install: &Install) -> anyhow::Result<String> {
    let jar = format!("{}/cookies", install.data);
    let out = Command::new("curl")
        .args([
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code} %{redirect_url}",
            "-c",
            &jar,
        ])
        .args(["-H", "Sec-Fetch-Site: same-origin"])
        .args([
            "--data-urlencode",
            "email=admin@bench.example",
            "--data-urlencode",
            &format!("password={ADMIN_PASSWORD}"),
        ])
        .arg(format!("http://127.0.0.1:{PORT}/login"))
        .output()?;
    let said = String::from_utf8_lossy(&out.stdout);
    if !said.starts_with("303") || said.contains("error") {
        bail!("sign-in failed: {said}");
    }
    Ok(jar)
}

/// Calls a server function `samples` times; returns (p50, p95) in milliseconds.
fn time_server_fn(
    jar: &str,
    endpoint: &str,
    body: &str,
    samples: usize,
) -> anyhow::Result<(f64, f64)> {
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples {
        let out = Command::new("curl")
            .args([
                "-s",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code} %{time_total}",
                "-b",
                jar,
            ])
            .args(["-H", "Sec-Fetch-Site: same-origin"])
            .args(["-H", "Content-Type: application/x-www-form-urlencoded"])
            .args(["--data", body])
            .arg(format!("http://127.0.0.1:{PORT}/api/{endpoint}"))
            .output()?;
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        let (code, secs) = said.split_once(' ').context("curl output")?;
        if code != "200" {
            bail!("{endpoint} {body} answered {code}");
        }
        times.push(secs.parse::<f64>()? * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() as f64 * q).ceil() as usize).clamp(1, times.len()) - 1];
    Ok((at(0.5), at(0.95)))
}

fn scale() -> anyhow::Result<()> {
    ensure("curl", "curl")?;
    ensure("sqlite3", "sqlite3")?;
    let (n, audit) = (100_000, 1_000_000);
    println!(
        "\n{n} clients, {n} agents, {audit} audit rows; 30 calls per case, p50 / p95 in ms (curl time_total)\n"
    );
    println!("| backend | list | first page | middle page | search |");
    println!("|---|---|---|---|---|");
    scale_one("sqlite", None, n, audit)?;
    let (url, admin, name) = bench_database("scale")?;
    let result = scale_one("postgres", Some(url), n, audit);
    drop_bench_database(&admin, &name);
    result
}

fn scale_one(backend: &str, pg_url: Option<String>, n: u32, audit: u32) -> anyhow::Result<()> {
    let postgres = pg_url.is_some();
    let install = Install::new(&format!("bench-scale-{backend}"), pg_url.clone())?;
    install.cli(&["migrate"])?;
    install.cli_with_stdin(
        &[
            "admin",
            "create",
            "--email",
            "admin@bench.example",
            "--name",
            "Admin",
        ],
        &format!("{ADMIN_PASSWORD}\n"),
    )?;
    let sqlite_path = format!("{}/portcullis.db", install.data);
    let query = |sql: &str| -> anyhow::Result<String> {
        let out = match &pg_url {
            Some(url) => Command::new("psql")
                .args([url.as_str(), "-qtAc", sql])
                .output()?,
            None => Command::new("sqlite3")
                .args([sqlite_path.as_str(), sql])
                .output()?,
        };
        if !out.status.success() {
            bail!("{sql}: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let realm = query("SELECT id FROM realms WHERE name = 'default'")?;
    let t0 = Instant::now();
    let sql = seed_sql(postgres, &realm, n, audit);
    for statement in sql.lines().filter(|l| !l.trim().is_empty()) {
        query(statement)?;
    }
    if postgres {
        query("ANALYZE")?;
    }
    eprintln!("seeded {backend} in {:.1}s", t0.elapsed().as_secs_f64());
    let _server = install.serve()?;
    let jar = sign_in(&install)?;
    // Lists page by key: the middle page starts after the middle row's key (the MCP-capable
    // third's middle lies at the same key).
    let middle = format!("{:06}", n / 2);
    // The audit log pages by id: the page below the middle event.
    let middle_audit = audit / 2;
    let cases: [(&str, &str, [String; 3]); 4] = [
        (
            "clients",
            "clients/list",
            [
                "query=&after=&before=".into(),
                format!("query=&after=client-{middle}&before="),
                "query=number+4242&after=&before=".into(),
            ],
        ),
        (
            "agents",
            "agents/list",
            [
                "query=&mcp_only=false&expiring_soon=false&after=&before=".into(),
                format!("query=&mcp_only=false&expiring_soon=false&after=agent-{middle}&before="),
                "query=agent-04242&mcp_only=false&expiring_soon=false&after=&before=".into(),
            ],
        ),
        (
            "agents (MCP-capable)",
            "agents/list",
            [
                "query=&mcp_only=true&expiring_soon=false&after=&before=".into(),
                format!("query=&mcp_only=true&expiring_soon=false&after=agent-{middle}&before="),
                "query=owner42%40&mcp_only=true&expiring_soon=false&after=&before=".into(),
            ],
        ),
        (
            "audit",
            "audit/list",
            [
                AUDIT_QUERY.to_owned(),
                format!("{AUDIT_QUERY}&before={middle_audit}"),
                AUDIT_QUERY.replace("query%5Bactor%5D=", "query%5Bactor%5D=user42%40"),
            ],
        ),
    ];
    for (name, endpoint, bodies) in cases {
        let mut cells = Vec::new();
        for body in &bodies {
            let (p50, p95) = time_server_fn(&jar, endpoint, body, 30)?;
            cells.push(format!("{p50:.1} / {p95:.1}"));
        }
        println!("| {backend} | {name} | {} |", cells.join(" | "));
    }
    Ok(())
}

/// The PKCE pair of the `codes` benchmark (RFC 7636 Appendix B).
const BENCH_VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const BENCH_CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
const BENCH_REDIRECT: &str = "https://app.bench.example/cb";

fn curl(args: &[&str]) -> anyhow::Result<String> {
    let out = Command::new("curl")
        .args(["-s", "--max-time", "10"])
        .args(args)
        .output()
        .context("Failed to run curl")?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn hidden(html: &str, name: &str) -> anyhow::Result<String> {
    let key = format!("name=\"{name}\" value=\"");
    let at = html
        .find(&key)
        .with_context(|| format!("no {name} in the page"))?
        + key.len();
    let end = html[at..].find('"').context("unterminated value")?;
    Ok(html[at..at + end].to_owned())
}

/// wrk's summary: requests, non-2xx/3xx responses, requests/s, p99.
fn wrk_counts(text: &str) -> anyhow::Result<(f64, f64, f64, String)> {
    let total: f64 = text
        .lines()
        .find_map(|l| {
            l.trim()
                .split_once(" requests in ")
                .map(|(n, _)| n.trim().to_owned())
        })
        .context("wrk printed no request count")?
        .parse()?;
    let failed: f64 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Non-2xx or 3xx responses:"))
        .map_or(Ok(0.0), |n| n.trim().parse())?;
    let (rps, p99) = parse_wrk(text)?;
    Ok((total, failed, rps, p99))
}

/// A throwaway PostgreSQL database for one benchmark: its URL, and the admin URL and name to
/// drop it with.
fn bench_database(what: &str) -> anyhow::Result<(String, String, String)> {
    let pg_admin = std::env::var("PORTCULLIS_BENCH_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let pg_name = format!("portcullis_bench_{what}_{}", std::process::id());
    let mut pg_url = pg_admin.clone();
    if let Some(i) = pg_url.rfind('/') {
        pg_url.truncate(i + 1);
        pg_url.push_str(&pg_name);
    }
    crate::run(Command::new("psql").args([
        &pg_admin,
        "-qc",
        &format!("CREATE DATABASE {pg_name}"),
    ]))?;
    Ok((pg_url, pg_admin, pg_name))
}

fn drop_bench_database(pg_admin: &str, pg_name: &str) {
    let _ = crate::run(Command::new("psql").args([
        pg_admin,
        "-qc",
        &format!("DROP DATABASE IF EXISTS {pg_name} WITH (FORCE)"),
    ]));
}

/// `cargo xtask bench codes`: the authorization endpoint issuing codes (a signed-in person
/// with remembered consent), the `authorization_code` exchange and `refresh_token` rotation,
/// on SQLite and on PostgreSQL.
fn codes() -> anyhow::Result<()> {
    ensure("curl", "curl")?;
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    println!("\nauthorization code and refresh, {cores} cores, wrk -t2 on the same machine\n");
    println!(
        "| backend | step | connections | per second | server cores used | CPU µs each | p99 latency |"
    );
    println!("|---|---|---|---|---|---|---|");
    codes_on("sqlite", None)?;
    let (url, admin, name) = bench_database("codes")?;
    let result = codes_on("postgres", Some(url));
    drop_bench_database(&admin, &name);
    result
}

fn codes_on(backend: &str, database_url: Option<String>) -> anyhow::Result<()> {
    let install = Install::new(&format!("bench-codes-{backend}"), database_url)?;
    install.cli(&["migrate"])?;
    install.resource("es256", "ES256")?;
    install.cli(&[
        "clients",
        "create",
        "--client-id",
        "app",
        "--name",
        "Bench app",
        "--scope",
        "tools:call",
        "--auth-method",
        "none",
        "--redirect-uris",
        BENCH_REDIRECT,
    ])?;
    install.cli_with_stdin(
        &[
            "people",
            "add",
            "--email",
            "bench@example.com",
            "--password",
        ],
        "bench-person-password\n",
    )?;
    let server = install.serve()?;
    let pid = server.0.id();
    let dir = &install.data;
    let base = format!("http://127.0.0.1:{PORT}");
    let query = format!(
        "/realms/default/authorize?response_type=code&client_id=app&redirect_uri={}&code_challenge={BENCH_CHALLENGE}&code_challenge_method=S256&resource={}",
        "https%3A%2F%2Fapp.bench.example%2Fcb", "https%3A%2F%2Fes256.bench.example%2Fmcp"
    );
    // Sign in and agree once, as a browser would; afterwards every request gets a code at once.
    let jar = format!("{dir}/cookies");
    let page = curl(&["-c", &jar, &format!("{base}{query}")])?;
    let form = format!(
        "step=login&ticket={}&email=bench%40example.com&password=bench-person-password",
        hidden(&page, "ticket")?
    );
    let page = curl(&[
        "-b",
        &jar,
        "-c",
        &jar,
        "-H",
        "Sec-Fetch-Site: same-origin",
        "-d",
        &form,
        &format!("{base}/realms/default/authorize"),
    ])?;
    let form = format!(
        "step=consent&decision=approve&ticket={}",
        hidden(&page, "ticket")?
    );
    curl(&[
        "-b",
        &jar,
        "-c",
        &jar,
        "-H",
        "Sec-Fetch-Site: same-origin",
        "-d",
        &form,
        &format!("{base}/realms/default/authorize"),
    ])?;
    let cookie: String = std::fs::read_to_string(&jar)?
        .lines()
        .filter(|l| !l.starts_with('#') || l.starts_with("#HttpOnly_"))
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() == 7).then(|| format!("{}={}", f[5], f[6]))
        })
        .collect::<Vec<_>>()
        .join("; ");
    anyhow::ensure!(
        cookie.contains("portcullis_login="),
        "the bench sign-in failed"
    );
    let measure = |script: &str,
                   conns: u32,
                   seconds: u32,
                   path: &str|
     -> anyhow::Result<(f64, f64, f64, String)> {
        let cpu0 = cpu_seconds(pid)?;
        let t0 = Instant::now();
        let out = Command::new("wrk")
            .args(wrk_args(script, 2, conns, seconds, path))
            .output()?;
        let wall = t0.elapsed().as_secs_f64();
        let cpu = cpu_seconds(pid)? - cpu0;
        let (total, failed, rps, p99) = wrk_counts(&String::from_utf8_lossy(&out.stdout))?;
        Ok((total - failed, rps, cpu / wall, p99))
    };
    // 1. Codes: each request is a signed-in person's authorization with remembered consent.
    let authorize = format!("{dir}/authorize.lua");
    std::fs::write(
        &authorize,
        format!(
            "wrk.headers[\"Cookie\"] = \"{cookie}\"\nlocal out\nfunction setup(thread) thread:set(\"id\", math.random(1, 1000000000)) end\nfunction init(args) out = io.open(\"{dir}/codes-\" .. id, \"w\") out:setvbuf(\"line\") end\nfunction response(status, headers, body)\n  local loc = headers[\"location\"] or headers[\"Location\"]\n  if loc then local c = loc:match(\"code=([^&]+)\") if c then out:write(c, \"\\n\") end end\nend\n"
        ),
    )?;
    let (ok, rps, used, p99) = measure(&authorize, 16, SECONDS, &query)?;
    println!(
        "| {backend} | authorize (code issued) | 16 | {rps:.0} | {used:.2} | {:.0} | {p99} |",
        used / rps * 1e6
    );
    anyhow::ensure!(ok > 1000.0, "too few codes were issued");
    let mut all = String::new();
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("codes-"))
        {
            all.push_str(&std::fs::read_to_string(&p)?);
        }
    }
    std::fs::write(format!("{dir}/codes"), &all)?;
    // 2. Exchanges: each thread redeems its share of the codes once; the refresh tokens are kept.
    let exchange = format!("{dir}/exchange.lua");
    std::fs::write(
        &exchange,
        format!(
            "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/x-www-form-urlencoded\"\nlocal n = 0\nfunction setup(thread) thread:set(\"id\", n) n = n + 1 end\nlocal codes, i, out = {{}}, 0, nil\nfunction init(args)\n  local k = 0\n  for line in io.lines(\"{dir}/codes\") do if k % 2 == id then codes[#codes + 1] = line end k = k + 1 end\n  out = io.open(\"{dir}/refresh-\" .. id, \"w\") out:setvbuf(\"line\")\nend\nfunction request()\n  i = i + 1\n  local c = codes[i] or \"exhausted\"\n  return wrk.format(nil, nil, nil, \"grant_type=authorization_code&client_id=app&code=\" .. c .. \"&redirect_uri=https%3A%2F%2Fapp.bench.example%2Fcb&code_verifier={BENCH_VERIFIER}\")\nend\nfunction response(status, headers, body)\n  local r = body:match('\"refresh_token\":\"([^\"]+)\"') if r then out:write(r, \"\\n\") end\nend\n"
        ),
    )?;
    let codes_held = all.lines().count() as f64;
    anyhow::ensure!(
        codes_held > 1000.0,
        "the authorization responses carried too few codes"
    );
    let seconds = ((codes_held / 2.0 / rps.max(1.0)).floor() as u32).clamp(1, SECONDS);
    let (ok, _, used, p99) = measure(&exchange, 16, seconds, "/realms/default/token")?;
    let per_sec = ok / f64::from(seconds);
    println!(
        "| {backend} | authorization_code exchange | 16 | {per_sec:.0} | {used:.2} | {:.0} | {p99} |",
        used / per_sec * 1e6
    );
    // 3. Refreshes: each thread rotates its refresh tokens, every answer feeding the next request.
    let refresh = format!("{dir}/refresh.lua");
    std::fs::write(
        &refresh,
        format!(
            "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/x-www-form-urlencoded\"\nlocal n = 0\nfunction setup(thread) thread:set(\"id\", n) n = n + 1 end\nlocal queue, head = {{}}, 1\nfunction init(args) for line in io.lines(\"{dir}/refresh-\" .. id) do queue[#queue + 1] = line end end\nfunction request()\n  local t = queue[head] or \"exhausted\"\n  queue[head] = nil head = head + 1\n  return wrk.format(nil, nil, nil, \"grant_type=refresh_token&client_id=app&refresh_token=\" .. t)\nend\nfunction response(status, headers, body)\n  local r = body:match('\"refresh_token\":\"([^\"]+)\"') if r then queue[#queue + 1] = r end\nend\n"
        ),
    )?;
    let (ok, _, used, p99) = measure(&refresh, 16, SECONDS, "/realms/default/token")?;
    let per_sec = ok / f64::from(SECONDS);
    println!(
        "| {backend} | refresh_token rotation | 16 | {per_sec:.0} | {used:.2} | {:.0} | {p99} |",
        used / per_sec * 1e6
    );
    drop(server);
    Ok(())
}

/// The registry: the pure work at scale (check, render for six harnesses, canonical JSON and
/// signature, verification; `portcullis-manifest`'s `registry_bench`), then through the
/// server: publish and render 500 servers at the command line, and the MCP Registry API and
/// the release under load.
fn registry() -> anyhow::Result<()> {
    let install = Install::new("bench-registry", None)?;
    let policy = format!("{}/policy.json", install.data);
    crate::run(crate::cargo().args([
        "run",
        "--release",
        "-q",
        "-p",
        "portcullis-manifest",
        "--example",
        "registry_bench",
        "--",
        "--policy-out",
        &policy,
    ]))?;
    install.cli(&["migrate"])?;
    install.cli(&["registry", "apply", "--file", &policy])?;
    let timed = |args: &[&str]| -> anyhow::Result<f64> {
        let t = Instant::now();
        install.cli(args)?;
        Ok(t.elapsed().as_secs_f64() * 1e3)
    };
    println!("\nAt the command line (one process each: start, database, work), 500 servers\n");
    println!("| command | wall time |");
    println!("|---|---|");
    println!(
        "| `portcullis registry publish` | {:.0} ms |",
        timed(&["registry", "publish"])?
    );
    for harness in [
        "claude-code",
        "codex",
        "gemini",
        "copilot",
        "cursor",
        "opencode",
    ] {
        let out = format!("{}/render-{harness}", install.data);
        println!(
            "| `portcullis registry render --harness {harness} --ring everyone` | {:.0} ms |",
            timed(&[
                "registry",
                "render",
                "--harness",
                harness,
                "--ring",
                "everyone",
                "--out",
                &out
            ])?
        );
    }
    install.cli(&["registry", "settings", "--access", "public"])?;
    let script = format!("{}/get.lua", install.data);
    std::fs::write(&script, "wrk.method = \"GET\"\n")?;
    let server = install.serve()?;
    let pid = server.0.id();
    println!("\nServed, {SECONDS} s per run, wrk -t2 on the same machine\n");
    println!("| request | connections | requests/s | server cores used | p99 latency |");
    println!("|---|---|---|---|---|");
    for (what, path) in [
        (
            "MCP Registry API list (30 of 500)",
            "/realms/default/registry/v0.1/servers?limit=30",
        ),
        (
            "MCP Registry API search",
            "/realms/default/registry/v0.1/servers?search=server-04",
        ),
        (
            "signed release (129 KiB)",
            "/realms/default/registry/releases/latest",
        ),
    ] {
        let warm = Command::new("wrk")
            .args(wrk_args(&script, 1, 4, 1, path))
            .output()?;
        if String::from_utf8_lossy(&warm.stdout).contains("Non-2xx") {
            bail!(
                "{what}: requests failed: {}",
                String::from_utf8_lossy(&warm.stdout)
            );
        }
        for conns in [16, 64] {
            let cpu0 = cpu_seconds(pid)?;
            let t0 = Instant::now();
            let out = Command::new("wrk")
                .args(wrk_args(&script, 2, conns, SECONDS, path))
                .output()
                .context("Failed to run wrk")?;
            let cores = (cpu_seconds(pid)? - cpu0) / t0.elapsed().as_secs_f64();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            if text.contains("Non-2xx") {
                bail!("{what}: some requests failed:\n{text}");
            }
            let (rps, p99) = parse_wrk(&text)?;
            println!("| {what} | {conns} | {rps:.0} | {cores:.2} | {p99} |");
        }
    }
    drop(server);
    Ok(())
}
