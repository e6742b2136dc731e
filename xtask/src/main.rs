//! `cargo xtask`: the one build tool, used by the README, CI and the browser tests alike.
//!
//! - `setup`  installs what is missing: the wasm32 target, wasm-bindgen-cli (pinned), npm
//!   packages (wasm-opt from `binaryen`, Playwright), and with `--browser` Debian's chromium.
//! - `build [--release]`  wasm (hydrate) → wasm-bindgen → wasm-opt (release) → CSS (encre-css,
//!   from the classes used in `app/src`) → server. The browser tests use the optimised wasm with
//!   the debug server the Rust tests already built, which saves CI a release build.
//! - `serve`  setup + build (optimised console, development server) + `portcullis serve` on an
//!   embedded SQLite file in `data/`, printing each stage's time.
//! - `test`  setup + every check CI runs, with each stage's duration.
//! - `css`  only regenerates the stylesheet.
//! - `bench [tokens|exchange|flood|soak|scale|codes|registry|guard|gateway]`  benchmarks (release build, `wrk` and friends from
//!   Debian); see BENCHMARKS.md.
mod bench;
mod modgraph;

use anyhow::{Context as _, bail};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const WASM_BINDGEN_VERSION: &str = "0.2.130";
const SITE: &str = "target/site";

fn main() -> anyhow::Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()?;
    std::env::set_current_dir(&root)?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let release = args.iter().any(|a| a == "--release");
    match args.first().map(String::as_str) {
        Some("setup") => setup(args.iter().any(|a| a == "--browser")),
        Some("build") => build(release),
        Some("css") => css(),
        Some("serve") => serve(),
        Some("test") => test(),
        Some("check-modules") => modgraph::check_workspace(&root),
        Some("bench") => bench::run(args.get(1).map(String::as_str)),
        _ => {
            eprintln!(
                "usage: cargo xtask <setup [--browser] | build [--release] | css | serve | test | check-modules | bench [tokens|exchange|flood|soak|scale|codes|registry|guard|gateway]>"
            );
            bail!("unknown command")
        }
    }
}

pub(crate) fn run(cmd: &mut Command) -> anyhow::Result<()> {
    eprintln!("$ {}", format!("{cmd:?}").replace('"', ""));
    let status = cmd
        .status()
        .with_context(|| format!("Failed to start {:?}", cmd.get_program()))?;
    if !status.success() {
        bail!("{:?} failed with {status}", cmd.get_program());
    }
    Ok(())
}

fn output(cmd: &mut Command) -> Option<String> {
    cmd.output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
}

pub(crate) fn cargo() -> Command {
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    if COLD.load(std::sync::atomic::Ordering::Relaxed) {
        cargo.env("CARGO_INCREMENTAL", "0");
    }
    cargo
}

/// A test run on a fresh checkout (CI's): nothing will reuse incremental caches, which would
/// add gigabytes to a disk the test binaries already fill.
static COLD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Runs `f` as a named stage and prints its duration.
fn stage<T>(name: &str, f: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
    eprintln!("\n==> {name}");
    let start = Instant::now();
    let result = f();
    eprintln!(
        "<== {name}: {:.1}s{}",
        start.elapsed().as_secs_f64(),
        if result.is_err() { " (FAILED)" } else { "" }
    );
    result
}

fn setup(browser: bool) -> anyhow::Result<()> {
    add_wasm_target()?;
    install_wasm_bindgen()?;
    npm_ci("style")?;
    if browser {
        npm_ci("end2end")?;
        if !Path::new("/usr/bin/chromium").exists() {
            run(Command::new("sh").args([
                "-c",
                "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium",
            ]))?;
        }
    }
    Ok(())
}

fn add_wasm_target() -> anyhow::Result<()> {
    let targets =
        output(Command::new("rustup").args(["target", "list", "--installed"])).unwrap_or_default();
    if !targets
        .lines()
        .any(|l| l.trim() == "wasm32-unknown-unknown")
    {
        run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    }
    Ok(())
}

/// Installs the pinned wasm-bindgen CLI unless it is on PATH already.
fn install_wasm_bindgen() -> anyhow::Result<()> {
    let have = output(Command::new("wasm-bindgen").arg("--version")).unwrap_or_default();
    if have.trim() == format!("wasm-bindgen {WASM_BINDGEN_VERSION}") {
        return Ok(());
    }
    // `--locked` fails for this version (a locked dependency is gone from the registry).
    // opt-level 1: it runs for a second or two per build, and compiles in half the time of
    // the default opt-level 3 (BENCHMARKS.md).
    run(cargo()
        .args([
            "install",
            "wasm-bindgen-cli",
            "--version",
            WASM_BINDGEN_VERSION,
        ])
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "1"))
}

fn npm_ci(dir: &str) -> anyhow::Result<()> {
    let stamp = Path::new(dir).join("node_modules/.package-lock.json");
    let lock = Path::new(dir).join("package-lock.json");
    let fresh = match (std::fs::metadata(&stamp), std::fs::metadata(&lock)) {
        (Ok(s), Ok(l)) => s.modified().ok() >= l.modified().ok(),
        _ => false,
    };
    if fresh {
        return Ok(());
    }
    run(Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(dir)
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1"))
}

fn build(release: bool) -> anyhow::Result<()> {
    build_site(release)?;
    build_server(release)
}

/// Where the wasm build puts its output: a target directory of its own, so it can build while
/// the server builds (cargo locks a target directory per invocation).
const WASM_TARGET_DIR: &str = "target/wasm";

/// The browser side: wasm (optimised when `release`), its JS glue, CSS and public files.
fn build_site(release: bool) -> anyhow::Result<()> {
    compile_wasm(release)?;
    package_site(release)
}

/// The hydrate build of the console.
fn compile_wasm(release: bool) -> anyhow::Result<()> {
    let profile = if release { "wasm-release" } else { "dev" };
    // The wasm build is its own invocation: feature unification with the server would turn on `ssr`.
    stage("wasm (hydrate)", || {
        run(cargo().args([
            "build",
            "-p",
            "app",
            "--lib",
            "--target",
            "wasm32-unknown-unknown",
            "--target-dir",
            WASM_TARGET_DIR,
            "--profile",
            profile,
            "--no-default-features",
            "--features",
            "hydrate",
        ]))
    })
}

/// The site from the compiled wasm: JS glue (wasm-bindgen), wasm-opt when `release`, CSS and
/// public files.
fn package_site(release: bool) -> anyhow::Result<()> {
    let wasm_dir = if release { "wasm-release" } else { "debug" };
    let pkg = Path::new(SITE).join("pkg");
    let _ = std::fs::remove_dir_all(&pkg);
    std::fs::create_dir_all(&pkg)?;
    stage("wasm-bindgen", || {
        let mut bindgen = Command::new("wasm-bindgen");
        bindgen.args([
            "--target",
            "web",
            "--no-typescript",
            "--out-dir",
            &pkg.display().to_string(),
            "--out-name",
            "app",
        ]);
        if release {
            // The name section (function names for stack traces) is 12 of the 14 MB; wasm-opt
            // would drop it anyway after spending a minute reading it.
            bindgen.args(["--remove-name-section", "--remove-producers-section"]);
        }
        run(bindgen.arg(format!(
            "{WASM_TARGET_DIR}/wasm32-unknown-unknown/{wasm_dir}/app.wasm"
        )))
    })?;
    if release {
        let wasm = pkg.join("app_bg.wasm").display().to_string();
        // wasm-opt from npm `binaryen`; Debian's binaryen 108 silently breaks hydration.
        stage("wasm-opt", || {
            run(Command::new("style/node_modules/.bin/wasm-opt").args([
                "-Oz",
                "--enable-bulk-memory",
                "--enable-nontrapping-float-to-int",
                &wasm,
                "-o",
                &wasm,
            ]))
        })?;
    }
    stage("css", css)?;
    for entry in std::fs::read_dir("public")? {
        let entry = entry?;
        std::fs::copy(entry.path(), Path::new(SITE).join(entry.file_name()))?;
    }
    Ok(())
}

/// The `portcullis` binary.
fn build_server(release: bool) -> anyhow::Result<()> {
    let mut server = cargo();
    server.args(["build", "-p", "server", "--bin", "portcullis"]);
    if release {
        server.arg("--release");
    }
    run(&mut server)
}

fn rust_sources(dir: &Path, out: &mut Vec<String>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            rust_sources(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(std::fs::read_to_string(&path)?);
        }
    }
    Ok(())
}

/// Generates `target/site/pkg/app.css` from the utility classes used in `app/src`, plus
/// `style/main.css`.
fn css() -> anyhow::Result<()> {
    let mut sources = Vec::new();
    rust_sources(Path::new("app/src"), &mut sources)?;
    let mut config = encre_css::Config::default();
    config.theme.dark_mode = encre_css::config::DarkMode::new_class(".dark");
    // One source: generated from several, each source's rules come out on their own, so a
    // later file's `sm:hidden` could follow (and beat) an earlier file's `md:table-cell`.
    // From one source every utility appears once, breakpoints in order.
    let all = sources.join("\n");
    let generated = encre_css::generate([all.as_str()], &config);
    let extra =
        std::fs::read_to_string("style/main.css").context("Failed to read style/main.css")?;
    let pkg = Path::new(SITE).join("pkg");
    std::fs::create_dir_all(&pkg)?;
    std::fs::write(pkg.join("app.css"), format!("{generated}\n{extra}"))?;
    eprintln!(
        "wrote {} ({} bytes)",
        pkg.join("app.css").display(),
        generated.len() + extra.len()
    );
    Ok(())
}

/// Sets up, builds and serves, timing each stage. The console (wasm, optimised) builds in its
/// own target directory beside the server, and the wasm-bindgen CLI installs beside both: on two
/// cores each fills the other's single-threaded stretches. The server is the development build
/// the tests and `cargo build` share; deployments use `cargo xtask build --release`
/// (BENCHMARKS.md has the measurements behind this).
fn serve() -> anyhow::Result<()> {
    let total = Instant::now();
    stage("wasm32 target", add_wasm_target)?;
    stage("npm packages (style)", || npm_ci("style"))?;
    let console = std::thread::spawn(|| {
        let bindgen = std::thread::spawn(|| stage("wasm-bindgen-cli", install_wasm_bindgen));
        let wasm = compile_wasm(true);
        bindgen
            .join()
            .map_err(|_| anyhow::anyhow!("the wasm-bindgen install panicked"))??;
        wasm?;
        package_site(true)
    });
    let server = stage("server (debug build)", || build_server(false));
    let console = console
        .join()
        .map_err(|_| anyhow::anyhow!("the console build panicked"))?;
    server?;
    console?;
    eprintln!(
        "\nBuilt in {:.0}s. Starting Portcullis on http://127.0.0.1:3000 (data in ./data).",
        total.elapsed().as_secs_f64()
    );
    eprintln!("First start: open the one-time setup link printed below to create the first admin,");
    eprintln!(
        "or create one with: target/debug/portcullis admin create --email you@example.com --name You\n"
    );
    run(Command::new("target/debug/portcullis")
        .arg("serve")
        .env("PORTCULLIS_CONSOLE__SITE_DIR", SITE))
}

/// Tallies `cargo test` and Playwright results from captured output.
#[derive(Default)]
struct Tally {
    passed: u64,
    failed: u64,
}

impl Tally {
    fn add_cargo(&mut self, out: &str) {
        for line in out.lines().filter(|l| l.starts_with("test result:")) {
            self.passed += number_before(line, " passed");
            self.failed += number_before(line, " failed");
        }
    }
}

fn number_before(line: &str, word: &str) -> u64 {
    line.find(word)
        .and_then(|i| line[..i].rsplit(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn run_captured(cmd: &mut Command) -> anyhow::Result<(bool, String)> {
    eprintln!("$ {}", format!("{cmd:?}").replace('"', ""));
    let out = cmd
        .output()
        .with_context(|| format!("Failed to start {:?}", cmd.get_program()))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    print!("{text}");
    Ok((out.status.success(), text))
}

fn ensure_postgres() -> anyhow::Result<()> {
    let up = || {
        std::net::TcpStream::connect_timeout(
            &"127.0.0.1:5432".parse().expect("valid address"),
            std::time::Duration::from_secs(2),
        )
        .is_ok()
    };
    if up() {
        return Ok(());
    }
    eprintln!("PostgreSQL is not answering on 127.0.0.1:5432; trying to start the local cluster");
    let _ = run(Command::new("sh").args([
        "-c",
        "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
    ]));
    for _ in 0..20 {
        if up() {
            return Ok(());
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    bail!("PostgreSQL is required for the test suite but is not reachable on 127.0.0.1:5432")
}

fn test() -> anyhow::Result<()> {
    let total = Instant::now();
    let mut tally = Tally::default();
    // No server built yet: a fresh checkout. Later runs keep incremental caches (and rebuild
    // the workspace's own crates once to make them).
    if !Path::new("target/debug/portcullis").exists() {
        COLD.store(true, std::sync::atomic::Ordering::Relaxed);
        eprintln!("A fresh checkout: building without incremental caches.");
    }
    stage("setup", || setup(true))?;
    stage("postgres", ensure_postgres)?;
    stage("migration listings match", check_migration_names)?;
    stage("fmt", || run(cargo().args(["fmt", "--all", "--check"])))?;
    stage("clippy (server, ssr)", || {
        run(cargo().args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]))
    })?;
    stage("clippy (app, wasm hydrate)", || {
        run(cargo().args([
            "clippy",
            "-p",
            "app",
            "--lib",
            "--target",
            "wasm32-unknown-unknown",
            "--no-default-features",
            "--features",
            "hydrate",
            "--",
            "-D",
            "warnings",
        ]))
    })?;
    stage("authz has neither axum nor leptos", check_authz_tree)?;
    stage("module graphs have no cycles", || {
        modgraph::check_workspace(Path::new("."))
    })?;
    stage("rust tests (SQLite and PostgreSQL)", || {
        let (ok, out) = run_captured(
            cargo()
                .args(["test", "--workspace"])
                .env("PORTCULLIS_TEST_POSTGRES_REQUIRED", "1"),
        )?;
        tally.add_cargo(&out);
        if ok {
            Ok(())
        } else {
            bail!("cargo test failed")
        }
    })?;
    // The console builds in its own target directory beside the PostgreSQL run of the API
    // tests, which compiles nothing and waits on the database much of the time. The browser
    // tests use the development bundle: the optimised one costs about four more minutes on two
    // cores (LTO, then two minutes of wasm-opt), which a cold run cannot spare. Hydration does
    // not depend on which: the server hands each resource over once (an API test checks).
    let console =
        std::thread::spawn(|| stage("console build (development wasm)", || build_site(false)));
    let api_on_postgres = stage("HTTP API tests on PostgreSQL", || {
        let (ok, out) = run_captured(
            cargo()
                .args(["test", "--workspace", "--test", "api"])
                .env("PORTCULLIS_TEST_API_POSTGRES", "1"),
        )?;
        tally.add_cargo(&out);
        if ok {
            Ok(())
        } else {
            bail!("API tests on PostgreSQL failed")
        }
    });
    let console = console
        .join()
        .map_err(|_| anyhow::anyhow!("the console build panicked"));
    api_on_postgres?;
    console??;
    stage("debug server and CLI (built by the Rust tests)", || {
        // `cargo test --workspace` built both for the CLI tests, with the test run's features:
        // a `cargo build -p …` would resolve other features and compile them again
        // (BENCHMARKS.md). This is a no-op that proves they are current.
        run(cargo().args(["test", "--workspace", "--no-run", "--quiet"]))?;
        for built in ["target/debug/portcullis", "target/debug/portcullis-cli"] {
            if !Path::new(built).exists() {
                bail!("{built} is missing after the test build");
            }
        }
        Ok(())
    })?;
    stage(
        "the generated Rust MCP server, built in an empty directory from crates.io",
        build_rust_snippet,
    )?;
    stage(
        "agent harnesses load the rendered files and call portcullis-cli for tokens (Claude Code, Codex, Gemini CLI)",
        || {
            let bin = std::fs::canonicalize("target/debug/portcullis")
                .context("target/debug/portcullis is missing")?;
            run(Command::new("node")
                .arg("end2end/harnesses/run.mjs")
                .env("PORTCULLIS_BIN", bin))
        },
    )?;
    stage("browser tests (Playwright, Debian chromium)", || {
        let data = tempdir_path("e2e")?;
        let (ok, out) = run_captured(
            Command::new("npx")
                .args(["playwright", "test"])
                .current_dir("end2end")
                .env("E2E_DATA_DIR", &data)
                .env("E2E_BIN", "target/debug/portcullis")
                .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1"),
        )?;
        let _ = std::fs::remove_dir_all(&data);
        // The screenshots of every screen are the run's artifacts (CI archives the folder).
        let shots = std::fs::read_dir("end2end/screenshots").map_or(0, |d| d.count());
        eprintln!("screenshots: {shots} files in end2end/screenshots/ (archive as CI artifacts)");
        for line in out.lines().map(str::trim) {
            if line.ends_with(')') && line.contains(" passed (") {
                tally.passed += number_before(line, " passed");
            } else if line.ends_with(" failed") {
                tally.failed += number_before(line, " failed");
            }
        }
        if ok {
            Ok(())
        } else {
            bail!("browser tests failed")
        }
    })?;
    eprintln!(
        "\nAll stages passed in {:.1}s",
        total.elapsed().as_secs_f64()
    );
    println!("summary: {} passed, {} failed", tally.passed, tally.failed);
    Ok(())
}

/// Builds `end2end/rust-server` — the Rust server the console generates for the browser
/// tests' input, which a unit test keeps equal to the generator's output — the way a developer would:
/// its two files alone in an empty directory outside this repository (under `~/.cache`),
/// dependencies from
/// crates.io. The workspace's `Cargo.lock` comes along so the versions are the tested ones, and
/// the build shares `target/` (with the workspace's dependency profile) so the crates it has in
/// common with the workspace at the same features are not compiled twice. The browser tests
/// run `target/debug/snippet-test-server`.
fn build_rust_snippet() -> anyhow::Result<()> {
    // Under the user's own cache directory, not the shared /tmp: Cargo and rustup read
    // configuration (`.cargo/config.toml`, `rust-toolchain.toml`) from every parent directory,
    // and another user could plant one there. Created anew (never reused), owner-only.
    let home = std::env::var_os("HOME").context("HOME is not set")?;
    let parent = PathBuf::from(home).join(".cache");
    std::fs::create_dir_all(&parent)?;
    let dir = parent.join(format!("portcullis-rust-server-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .with_context(|| format!("creating {}", dir.display()))?;
    }
    let built = build_rust_snippet_in(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    built
}

fn build_rust_snippet_in(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    for file in ["Cargo.toml", "src/main.rs"] {
        std::fs::copy(Path::new("end2end/rust-server").join(file), dir.join(file))
            .with_context(|| format!("copying end2end/rust-server/{file}"))?;
    }
    std::fs::copy("Cargo.lock", dir.join("Cargo.lock"))?;
    let target = std::fs::canonicalize("target").context("target/ is missing")?;
    // Formatted as `cargo fmt` would leave it: what a developer pastes is tidy.
    run(Command::new("rustfmt")
        .args(["--check", "--edition", "2024", "src/main.rs"])
        .current_dir(dir))?;
    run(cargo()
        .current_dir(dir)
        .args(["build", "--config", "profile.dev.package.\"*\".debug=false"])
        .env("CARGO_TARGET_DIR", &target))?;
    if !target.join("debug/snippet-test-server").exists() {
        bail!("target/debug/snippet-test-server is missing after its build");
    }
    Ok(())
}

pub(crate) fn tempdir_path(name: &str) -> anyhow::Result<String> {
    let dir = std::env::temp_dir().join(format!("portcullis-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir.display().to_string())
}

fn check_migration_names() -> anyhow::Result<()> {
    let names = |dir: &str| -> anyhow::Result<Vec<String>> {
        let mut v: Vec<String> = std::fs::read_dir(dir)?
            .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect::<Result<_, _>>()?;
        v.sort();
        Ok(v)
    };
    let (s, p) = (names("migrations/sqlite")?, names("migrations/postgres")?);
    if s != p {
        bail!(
            "migrations/sqlite and migrations/postgres differ:\n  sqlite:   {s:?}\n  postgres: {p:?}"
        );
    }
    Ok(())
}

/// `authz` depends on no `axum*` and no `leptos*` crate, directly or not.
fn check_authz_tree() -> anyhow::Result<()> {
    let tree = output(cargo().args(["tree", "-p", "authz", "-e", "normal", "--prefix", "none"]))
        .context("cargo tree failed")?;
    let found: Vec<&str> = tree
        .lines()
        .filter(|l| l.starts_with("axum") || l.starts_with("leptos"))
        .collect();
    if !found.is_empty() {
        bail!("authz depends on {}", found.join(", "));
    }
    Ok(())
}
