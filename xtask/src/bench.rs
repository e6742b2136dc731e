//! `cargo xtask bench`: client_credentials throughput against the release server.
//!
//! For ES256 and RS256 resources, at 16 and 64 keep-alive connections (wrk, 10 s each), it reports
//! tokens/s, the server's CPU (cores used, CPU time per token) and, measured in the same run with
//! the same key, the raw single-core signing rate; the ratio is
//! `tokens/s ÷ (raw rate × cores used)`: 100% means the server spends its CPU only on signing.
use anyhow::{Context as _, bail};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const PORT: u16 = 3300;
const SECONDS: u32 = 10;

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn portcullis(data: &str) -> Command {
    let mut c = Command::new("target/release/portcullis");
    c.env("PORTCULLIS_DATA_DIR", data)
        .env("PORTCULLIS_HTTP__BIND", format!("127.0.0.1:{PORT}"))
        .env("PORTCULLIS_PUBLIC_URL", format!("http://127.0.0.1:{PORT}"))
        .env("PORTCULLIS_LOG__FILTER", "warn");
    c
}

fn cli(data: &str, args: &[&str]) -> anyhow::Result<String> {
    let out = portcullis(data)
        .args(args)
        .output()
        .context("Failed to run portcullis")?;
    if !out.status.success() {
        bail!(
            "portcullis {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
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

struct Run {
    rps: f64,
    cores: f64,
    cpu_us_per_token: f64,
    p99: String,
}

fn wrk(script: &str, conns: u32, pid: u32) -> anyhow::Result<Run> {
    let cpu0 = cpu_seconds(pid)?;
    let t0 = Instant::now();
    let out = Command::new("wrk")
        .args([
            "-t2",
            &format!("-c{conns}"),
            &format!("-d{SECONDS}s"),
            "--latency",
            "-s",
            script,
            &format!("http://127.0.0.1:{PORT}/realms/default/token"),
        ])
        .output()
        .context("Failed to run wrk")?;
    let wall = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds(pid)? - cpu0;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if text.contains("Non-2xx") {
        bail!("some token requests failed:\n{text}");
    }
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
    Ok(Run {
        rps,
        cores: cpu / wall,
        cpu_us_per_token: cpu / (rps * wall) * 1e6,
        p99,
    })
}

pub fn run(which: Option<&str>) -> anyhow::Result<()> {
    let _ = which;
    if Command::new("wrk").arg("--version").output().is_err() {
        crate::run(Command::new("sh").args([
            "-c",
            "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk",
        ]))?;
    }
    crate::run(crate::cargo().args(["build", "--release", "-p", "server", "--bin", "portcullis"]))?;
    let data = crate::tempdir_path("bench")?;
    cli(&data, &["migrate"])?;
    cli(
        &data,
        &[
            "resources",
            "create",
            "--id",
            "es",
            "--name",
            "ES256",
            "--uri",
            "https://es.bench.example/mcp",
            "--scopes",
            "tools:call",
        ],
    )?;
    cli(
        &data,
        &[
            "resources",
            "create",
            "--id",
            "rs",
            "--name",
            "RS256",
            "--uri",
            "https://rs.bench.example/mcp",
            "--scopes",
            "tools:call",
            "--alg",
            "RS256",
        ],
    )?;
    let out = cli(
        &data,
        &[
            "clients",
            "create",
            "--client-id",
            "bench",
            "--name",
            "Bench",
            "--scope",
            "tools:call",
        ],
    )?;
    let secret = out
        .lines()
        .find_map(|l| l.strip_prefix("client_secret: "))
        .context("no secret printed")?
        .to_owned();
    let mut raw = Vec::new();
    for alg in ["ES256", "RS256"] {
        let out = cli(
            &data,
            &["keys", "bench-sign", "--alg", alg, "--seconds", "3"],
        )?;
        let rate: f64 = out
            .trim()
            .strip_prefix("signatures/s: ")
            .context("bench-sign output")?
            .parse()?;
        raw.push((alg, rate));
    }

    let server = Server(
        portcullis(&data)
            .arg("serve")
            .stdout(Stdio::null())
            .spawn()
            .context("Failed to start the server")?,
    );
    let pid = server.0.id();
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", PORT)).is_err() {
        if Instant::now() > deadline {
            bail!("the server did not start");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let basic = {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(format!("bench:{secret}"))
    };
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    println!(
        "\nclient_credentials, {SECONDS} s per run, {cores} cores, wrk -t2 on the same machine\n"
    );
    println!(
        "| alg | connections | tokens/s | server cores used | CPU µs/token | p99 latency | raw signs/s (1 core) | ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (alg, rate) in &raw {
        let uri = if *alg == "ES256" {
            "https%3A%2F%2Fes.bench.example%2Fmcp"
        } else {
            "https%3A%2F%2Frs.bench.example%2Fmcp"
        };
        let script = format!("{data}/{alg}.lua");
        std::fs::write(
            &script,
            format!(
                "wrk.method = \"POST\"\nwrk.body = \"grant_type=client_credentials&scope=tools%3Acall&resource={uri}\"\nwrk.headers[\"Content-Type\"] = \"application/x-www-form-urlencoded\"\nwrk.headers[\"Authorization\"] = \"Basic {basic}\"\n"
            ),
        )?;
        // Warm the caches and the key ring.
        wrk_warmup(&script)?;
        for conns in [16, 64] {
            let r = wrk(&script, conns, pid)?;
            println!(
                "| {alg} | {conns} | {:.0} | {:.2} | {:.0} | {} | {:.0} | {:.0}% |",
                r.rps,
                r.cores,
                r.cpu_us_per_token,
                r.p99,
                rate,
                100.0 * r.rps / (rate * r.cores)
            );
        }
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&data);
    Ok(())
}

fn wrk_warmup(script: &str) -> anyhow::Result<()> {
    let out = Command::new("wrk")
        .args([
            "-t1",
            "-c4",
            "-d1s",
            "-s",
            script,
            &format!("http://127.0.0.1:{PORT}/realms/default/token"),
        ])
        .output()?;
    if String::from_utf8_lossy(&out.stdout).contains("Non-2xx") {
        bail!(
            "warm-up requests failed: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    Ok(())
}
