//! Pagination links for list screens.
use super::ui::{BTN_SMALL, MUTED};
use leptos::prelude::*;

/// "Showing a–b of n" with previous/next links built by `href(page)`.
#[component]
pub fn Pager(
    total: u64,
    page: u32,
    page_size: u32,
    href: impl Fn(u32) -> String + 'static,
) -> impl IntoView {
    let size = u64::from(page_size.max(1));
    let first = u64::from(page) * size;
    let last = (first + size).min(total);
    let pages = total.div_ceil(size).max(1);
    let has_prev = page > 0;
    let has_next = u64::from(page) + 1 < pages;
    view! {
        <nav aria-label="Pagination" class="flex items-center justify-between border-t border-slate-200 px-4 py-3 dark:border-slate-700">
            <p class=MUTED>
                {if total == 0 { "No results".to_owned() } else { format!("Showing {}–{} of {}", first + 1, last, total) }}
            </p>
            <div class="flex gap-2">
                {has_prev.then(|| view! { <a class=BTN_SMALL href=href(page - 1) rel="prev">"Previous"</a> })}
                {has_next.then(|| view! { <a class=BTN_SMALL href=href(page + 1) rel="next">"Next"</a> })}
            </div>
        </nav>
    }
}

/// Appends `key=value` pairs (URL-encoded, empty values skipped) to `path`.
pub fn with_query(path: &str, pairs: &[(&str, String)]) -> String {
    let q: Vec<String> = pairs
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}={}", encode(v)))
        .collect();
    if q.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{}", q.join("&"))
    }
}

fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b))
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::with_query;

    #[test]
    fn builds_queries() {
        assert_eq!(with_query("/users", &[("q", String::new())]), "/users");
        assert_eq!(
            with_query("/users", &[("q", "a b&c".into()), ("page", "2".into())]),
            "/users?q=a%20b%26c&page=2"
        );
    }
}
