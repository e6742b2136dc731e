//! The `portcullis` binary.
#![forbid(unsafe_code)]
use clap::Parser as _;

// The token path is allocation-heavy (JSON, base64, headers); mimalloc is cheaper than the
// system allocator there (see BENCHMARKS.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let cli = server::cli::Cli::parse();
    // Server-side rendering recurses deeply through nested view types; give workers room.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(8 * 1024 * 1024)
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(server::cli::run(cli)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // `portcullis agents list | head`: the reader has what it wanted.
        Err(e) if server::cli::closed_pipe(&e) => std::process::ExitCode::SUCCESS,
        Err(e) if e.is::<server::demo::Interrupted>() => {
            eprintln!("error: {e}");
            std::process::ExitCode::from(130)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
