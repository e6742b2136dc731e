//! The `portcullis` binary.
#![forbid(unsafe_code)]
use clap::Parser as _;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = server::cli::Cli::parse();
    match server::cli::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
