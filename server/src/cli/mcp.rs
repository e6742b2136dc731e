//! `check-mcp`: the MCP handshake tester at the command line (the console's "Check an MCP
//! server"), one core call; what it sent, what came back and the verdict of each step.
use super::support::core_error;
use authz::integration::Verdict;

/// Checks the MCP server at `url` against `realm` and prints each step.
///
/// # Errors
/// When the check cannot run, or a step fails (exit status 1).
pub(super) async fn check(core: &authz::Core, realm: &str, url: &str) -> anyhow::Result<()> {
    let report = core
        .check_mcp_server(
            &authz::Principal::cli(),
            realm,
            url,
            &authz::RequestMeta::default(),
        )
        .await
        .map_err(core_error)?;
    say!("Checking {} against realm {realm}", report.url);
    for (n, step) in report.steps.iter().enumerate() {
        let mark = match step.verdict {
            Verdict::Pass => "PASS",
            Verdict::Warn => "WARN",
            Verdict::Fail => "FAIL",
            Verdict::Skipped => "SKIP",
        };
        say!("\n{mark}  {}. {}", n + 1, step.title);
        say!("      {}", printable(&step.reason));
        for exchange in &step.exchanges {
            for line in exchange.request.lines() {
                say!("      > {}", printable(line));
            }
            for line in exchange.response.lines() {
                say!("      < {}", printable(line));
            }
        }
    }
    if report.passed() {
        say!("\nNo step failed.");
        Ok(())
    } else {
        anyhow::bail!("the MCP server failed the check")
    }
}

/// What a remote server sent, safe for a terminal: control characters (escape sequences that
/// could rewrite the screen) shown as `\u{…}`.
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn escape_sequences_never_reach_the_terminal() {
        assert_eq!(
            super::printable("HTTP 401\u{1b}[2J\u{9b}x\tok"),
            "HTTP 401\\u{1b}[2J\\u{9b}x\tok"
        );
    }
}
