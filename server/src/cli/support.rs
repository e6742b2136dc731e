//! What every command group shares: writing output, turning core errors into messages,
//! reading a password.
use anyhow::Context as _;
use std::io::{BufRead, IsTerminal};

/// Command output could not be written to stdout.
#[derive(Debug, thiserror::Error)]
#[error("cannot write to stdout: {0}")]
pub struct StdoutClosed(#[source] std::io::Error);

/// Writes command output to stdout.
///
/// # Errors
/// [`StdoutClosed`], e.g. with `BrokenPipe` when the reader went away.
pub fn write_out(args: std::fmt::Arguments<'_>) -> Result<(), StdoutClosed> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| out.flush())
        .map_err(StdoutClosed)
}

/// Whether a command failed only because whoever read its output stopped reading. Only a write
/// to stdout counts: a broken pipe anywhere else (a database socket) is a real failure.
pub fn closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<StdoutClosed>()
            .is_some_and(|c| c.0.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

pub(super) fn core_error(e: authz::Error) -> anyhow::Error {
    match e {
        authz::Error::InvalidField { field, message } => anyhow::anyhow!("{field}: {message}"),
        e => anyhow::anyhow!("{e}"),
    }
}

/// What a revocation in `realm` cannot reach, in words (for every message that says one
/// happened).
pub(super) async fn revocation_note(core: &authz::Core, realm: &str) -> anyhow::Result<String> {
    let horizon = core.local_token_horizon(realm).await.map_err(core_error)?;
    Ok(authz::tokens::local_verification_note(horizon))
}

pub(super) fn read_password() -> anyhow::Result<String> {
    if std::io::stdin().is_terminal() {
        let first =
            rpassword::prompt_password("Password: ").context("Failed to read the password")?;
        let second = rpassword::prompt_password("Repeat password: ")
            .context("Failed to read the password")?;
        anyhow::ensure!(first == second, "The two passwords do not match.");
        Ok(first)
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .context("Failed to read the password from stdin")?;
        Ok(line.trim_end_matches(['\r', '\n']).to_owned())
    }
}

/// Tells whoever runs the command that `waiting` clients wait for a security review, and
/// where the queue is (on stderr, so that a list on stdout stays a list).
pub(super) fn say_awaiting_review(core: &authz::Core, waiting: usize, listing_them: bool) {
    if waiting == 0 {
        return;
    }
    let (clients, get) = if waiting == 1 {
        ("1 client waits".to_owned(), "gets")
    } else {
        (format!("{waiting} clients wait"), "get")
    };
    let listed = if listing_them {
        ""
    } else {
        " (`portcullis registration pending` lists them)"
    };
    eprintln!(
        "{clients} for a security review and {get} no tokens until a reviewer approves: {}{listed}.",
        core.review_queue_url()
    );
}

#[cfg(test)]
mod tests {
    use super::{StdoutClosed, closed_pipe};
    use std::io::{Error, ErrorKind};

    #[test]
    fn only_a_closed_stdout_counts_as_a_quiet_end() {
        let stdout = anyhow::Error::from(StdoutClosed(Error::from(ErrorKind::BrokenPipe)));
        assert!(closed_pipe(&stdout));
        assert!(closed_pipe(&stdout.context("listing agents")));
        // A database socket's broken pipe is a failure, however deep in the chain.
        let socket = anyhow::Error::from(Error::from(ErrorKind::BrokenPipe)).context("migrate");
        assert!(!closed_pipe(&socket));
        let full = anyhow::Error::from(StdoutClosed(Error::from(ErrorKind::StorageFull)));
        assert!(
            !closed_pipe(&full),
            "a full disk is not a reader going away"
        );
    }
}
