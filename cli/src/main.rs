//! `portcullis-cli`: the laptop side of the Portcullis MCP server registry.
//!
//! `pull` fetches a realm's latest signed release, verifies it with the realm's JWKS and caches
//! it; `drift` compares the person's own harness configs with the cached release. `login`
//! signs the person in to a realm, `token` prints a short-lived token for one MCP server (what
//! harnesses call before connecting), `status` and `logout` show and end the sign-in. Exit
//! status: 0 clean, 1 drift found, 2 error (usage, network, a refused release, no cache), 3 the
//! server wants a (valid) token or the person must sign in.
//!
//! Environment: `XDG_CACHE_HOME` (cache root, else `~/.cache`), `HOME`; for `drift` without
//! `--home`, also where the harnesses themselves look: `CLAUDE_CONFIG_DIR`, `CODEX_HOME`,
//! `COPILOT_HOME`, `XDG_CONFIG_HOME`. `pull --token-env NAME` reads the token from `NAME`.
use clap::Parser;
use std::process::ExitCode;

mod args;
mod cache;
mod drift;
mod http;
mod pull;
mod signin;
mod vault;

#[derive(Debug, Parser)]
#[command(
    name = "portcullis-cli",
    version,
    about,
    long_about = None,
    after_help = "Exit status: 0 clean, 1 drift found, 2 error (usage, network, refused release, no cache), 3 a (valid) token or a new sign-in is needed."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Fetch the realm's latest registry release, verify its signature and content, cache it.
    Pull(pull::PullArgs),
    /// Compare your harnesses' MCP configs with the cached release (never edits a file).
    Drift(drift::DriftArgs),
    /// Sign in to a realm (browser on this machine, or --device for a code to enter elsewhere).
    Login(signin::LoginArgs),
    /// Print a fresh short-lived token for one MCP server (harnesses call this; it never opens
    /// a browser).
    Token(signin::TokenArgs),
    /// Show who is signed in where, the cached tokens and the cached release.
    Status(signin::StatusArgs),
    /// Revoke and forget the sign-in and its cached tokens.
    Logout(signin::LogoutArgs),
}

/// Runs `f` on a single-threaded runtime.
fn block_on<T: ExitStatus, F: std::future::Future<Output = Result<T, Failure>>>(
    f: F,
) -> Result<u8, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::error(format!("Failed to start the runtime: {e}")))
        .and_then(|rt| rt.block_on(f))
        .map(ExitStatus::code)
}

/// What a command's success says as an exit status.
trait ExitStatus {
    fn code(self) -> u8;
}

impl ExitStatus for () {
    fn code(self) -> u8 {
        0
    }
}

impl ExitStatus for u8 {
    fn code(self) -> u8 {
        self
    }
}

/// Why a command failed, and the exit status that says so.
#[derive(Debug)]
pub struct Failure {
    /// 2: error; 3: the server wants a (valid) token.
    pub code: u8,
    /// For stderr.
    pub message: String,
}

impl Failure {
    /// An error (exit status 2).
    pub fn error(message: impl Into<String>) -> Self {
        Failure {
            code: 2,
            message: message.into(),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Pull(args) => block_on(pull::run(args)),
        Command::Drift(args) => block_on(drift::run(args)),
        Command::Login(args) => block_on(signin::login(args)),
        Command::Token(args) => block_on(signin::token(args)),
        Command::Status(args) => signin::status(&args),
        Command::Logout(args) => block_on(signin::logout(args)),
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(f) => {
            eprintln!("portcullis-cli: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}
