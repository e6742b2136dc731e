//! Capability names: `<server>.<tool>`.
//!
//! Matched byte for byte against what the caller's search returns — never normalised, so no spelling (case, Unicode lookalikes, other
//! separators, path segments, surrounding space) reaches anything else.

/// The exact name of a server's tool.
pub fn capability_name(server: &str, tool: &str) -> String {
    format!("{server}.{tool}")
}

/// The capability `asked` names among `offered` (`(name, value)` pairs): only an identical name.
pub fn resolve<'a, T>(asked: &str, offered: &'a [(String, T)]) -> Option<&'a T> {
    offered.iter().find(|(n, _)| n == asked).map(|(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_name_resolves() {
        let offered = vec![(capability_name("notes", "search"), 1)];
        assert_eq!(resolve("notes.search", &offered), Some(&1));
        for trick in [
            "Notes.search",
            "notes.Search",
            "NOTES.SEARCH",
            "notes__search",
            "notes/search",
            "notes_search",
            "notes-search",
            "notes..search",
            " notes.search",
            "notes.search ",
            "notes.search\u{0}",
            "notes.ѕearch",        // Cyrillic ѕ
            "notes\u{2024}search", // one dot leader
            "notes．search",       // fullwidth full stop
            "./notes.search",
            "notes.search/../delete",
            "notes.search%2e",
            "search",
            "",
        ] {
            assert_eq!(resolve(trick, &offered), None, "{trick:?}");
        }
    }
}
