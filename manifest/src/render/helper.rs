//! The token helper command line: what may stand in it unquoted, and the realm's own CLI as
//! the helper.

/// Whether `text` may stand unquoted in a command line of any shell (sh, PowerShell, cmd):
/// URL characters none of them treats specially (no `%`, which cmd expands).
pub fn shell_safe(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~:/@+,=".contains(&b))
}

/// The token helper that runs `portcullis-cli token` for each server (`{url}`), signed in to
/// `realm` at `server` (the Portcullis base URL); `None` when either would need quoting.
pub fn portcullis_cli_helper(server: &str, realm: &str) -> Option<String> {
    (shell_safe(server) && shell_safe(realm)).then(|| {
        format!(
            "portcullis-cli token --server {server} --realm {realm} --resource {{url}} --format headers"
        )
    })
}
