//! The realm a browser tab shows, sent with each of its server-function calls.
//!
//! The console's realm lives in the session, which every tab of a browser shares. A tab that
//! loaded realm A keeps showing A after another tab switched the session to B; without this,
//! "Approve" pressed in the first tab would act on B. Every server function's client is
//! [`TabClient`]: in the browser it names the tab's realm in [`REALM_HEADER`], and the server
//! refuses a call whose tab realm is not the session's (`ssr::realm_context`), asking to reload.
use crate::error::AppError;
use leptos::server_fn::Bytes;
use leptos::server_fn::client::Client;
use leptos::server_fn::client::browser::BrowserClient;
use leptos::server_fn::request::browser::BrowserRequest;
use leptos::server_fn::response::browser::BrowserResponse;
use std::future::Future;

/// The request header naming the realm the calling tab shows.
pub const REALM_HEADER: &str = "x-portcullis-realm";

#[cfg(feature = "hydrate")]
thread_local! {
    static TAB_REALM: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Records the realm this tab shows (the console frame, once it has the session).
#[cfg_attr(not(feature = "hydrate"), allow(unused_variables))]
pub fn show_realm(name: &str) {
    #[cfg(feature = "hydrate")]
    TAB_REALM.with(|r| *r.borrow_mut() = Some(name.to_owned()));
}

/// The browser's `fetch` client, naming the tab's realm.
pub struct TabClient;

impl Client<AppError> for TabClient {
    type Request = BrowserRequest;
    type Response = BrowserResponse;

    fn send(req: Self::Request) -> impl Future<Output = Result<Self::Response, AppError>> + Send {
        #[cfg(feature = "hydrate")]
        TAB_REALM.with(|r| {
            if let Some(name) = r.borrow().as_deref() {
                req.headers().set(REALM_HEADER, name);
            }
        });
        <BrowserClient as Client<AppError>>::send(req)
    }

    fn open_websocket(
        path: &str,
    ) -> impl Future<
        Output = Result<
            (
                impl futures::Stream<Item = Result<Bytes, Bytes>> + Send + 'static,
                impl futures::Sink<Bytes> + Send + 'static,
            ),
            AppError,
        >,
    > + Send {
        <BrowserClient as Client<AppError>>::open_websocket(path)
    }

    fn spawn(future: impl Future<Output = ()> + Send + 'static) {
        <BrowserClient as Client<AppError>>::spawn(future);
    }
}

/// The header's value for a tab showing the realm `id` named `name`: `<id> <name>`.
pub fn header_value(id: &str, name: &str) -> String {
    format!("{id} {name}")
}

/// Why a call from a tab showing the realm named `tab` may not act in the session's realm
/// `session` (`same`: they are one realm), asking the user to reload; `None` when it may.
pub fn tab_mismatch(tab: &str, session: &str, same: bool) -> Option<String> {
    if same {
        return None;
    }
    let shown = if tab == session {
        // Renamed, or another realm took the name: the names alone cannot tell them apart.
        "another realm of that name".to_owned()
    } else {
        format!("realm “{tab}”")
    };
    Some(format!(
        "This page shows {shown}, but the console was switched to realm “{session}” in \
         another tab or window: this page neither loads nor changes anything until it is \
         reloaded. Reload it to work in “{session}”, or switch back."
    ))
}

#[cfg(test)]
mod tests {
    use super::tab_mismatch;

    #[test]
    fn a_tab_showing_another_realm_is_refused_with_both_names() {
        assert_eq!(tab_mismatch("default", "default", true), None);
        let m = tab_mismatch("team-a", "team-b", false).expect("refused");
        assert!(m.contains("“team-a”") && m.contains("“team-b”") && m.contains("Reload"));
        // Same name, another realm (renamed, then the name reused).
        let m = tab_mismatch("ops", "ops", false).expect("refused");
        assert!(m.contains("another realm of that name"), "{m}");
        assert_eq!(super::header_value("rlm_1", "ops"), "rlm_1 ops");
    }
}
