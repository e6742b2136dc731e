//! Protected resources (`api::resources`, `pages::resources`).
use super::Moment;
use serde::{Deserialize, Serialize};

/// A protected resource as shown in the console.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceView {
    /// Slug.
    pub slug: String,
    /// Display name.
    pub display_name: String,
    /// Canonical URI (the token audience).
    pub uri: String,
    /// Accepted scopes.
    pub scopes: String,
    /// Token lifetime override; `None` follows the realm's default.
    pub token_ttl_secs: Option<i64>,
    /// Signing algorithm override, empty for the default.
    pub signing_alg: String,
    /// Enabled flag.
    pub enabled: bool,
    /// `any_client` or `granted_clients`.
    pub consent: String,
    /// People roles required (space-separated; empty: everyone).
    pub people_roles: String,
    /// Scopes a request without `scope` gets (empty: all that may be granted).
    pub default_scopes: String,
    /// Self-registered machine clients get tokens without a grant.
    pub open_to_self_registered: bool,
    /// The developer who submitted it, until an admin enables (or disables) it.
    pub submitted_by: Option<String>,
    /// Why an admin rejected the submission.
    pub rejection: Option<String>,
}

/// A resource's introspection credentials (the card on its page).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceCredentialsView {
    /// The realm's introspection endpoint, where the MCP server uses them.
    pub introspection_endpoint: String,
    /// The credentials, if the resource has them.
    pub client: Option<CredentialsClientView>,
}

/// The client that holds a resource's introspection credentials.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CredentialsClientView {
    /// `client_id`.
    pub client_id: String,
    /// Enabled flag.
    pub enabled: bool,
    /// Review state (an administrator may have revoked them).
    pub review: String,
    /// Creation time.
    pub created: Moment,
    /// Secrets that work now.
    pub live_secrets: usize,
    /// When the newest secret was issued.
    pub newest_secret: Option<Moment>,
}

/// What the Resources list shows: a search over name, id and audience, a status, and the order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ListFilter {
    /// Search text.
    pub q: String,
    /// `enabled`, `disabled`, `submitted` (by a developer), or empty for any.
    pub status: String,
    /// Ordered by audience rather than by name.
    pub by_audience: bool,
}

impl ListFilter {
    /// Whether the list shows less than every resource.
    pub fn narrows(&self) -> bool {
        !self.q.trim().is_empty() || !self.status.is_empty()
    }

    /// Whether `r` is shown.
    pub fn keeps(&self, r: &ResourceView) -> bool {
        let q = self.q.trim().to_lowercase();
        let found = q.is_empty()
            || [&r.display_name, &r.slug, &r.uri]
                .iter()
                .any(|v| v.to_lowercase().contains(&q));
        let status = match self.status.as_str() {
            "enabled" => r.enabled,
            "disabled" => !r.enabled,
            "submitted" => r.submitted_by.is_some(),
            _ => true,
        };
        found && status
    }

    /// The resources shown, in order.
    pub fn apply(&self, list: Vec<ResourceView>) -> Vec<ResourceView> {
        let mut shown: Vec<ResourceView> = list.into_iter().filter(|r| self.keeps(r)).collect();
        if self.by_audience {
            shown.sort_by(|a, b| a.uri.cmp(&b.uri).then_with(|| a.slug.cmp(&b.slug)));
        } else {
            shown.sort_by_cached_key(|r| (r.display_name.to_lowercase(), r.slug.clone()));
        }
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(slug: &str, name: &str, uri: &str, enabled: bool) -> ResourceView {
        ResourceView {
            slug: slug.into(),
            display_name: name.into(),
            uri: uri.into(),
            enabled,
            ..ResourceView::default()
        }
    }

    #[test]
    fn the_list_searches_filters_and_sorts() {
        let list = vec![
            resource("pay", "payments", "https://z.example.com/mcp", true),
            resource("files", "Files", "https://a.example.com/mcp", false),
            resource("ledger", "Ledger", "https://m.example.com/ledger", true),
        ];
        let slugs = |f: ListFilter| -> Vec<String> {
            f.apply(list.clone()).into_iter().map(|r| r.slug).collect()
        };
        assert_eq!(
            slugs(ListFilter::default()),
            ["files", "ledger", "pay"],
            "by name, any case"
        );
        let by_audience = ListFilter {
            by_audience: true,
            ..ListFilter::default()
        };
        assert_eq!(slugs(by_audience), ["files", "ledger", "pay"]);
        let search = ListFilter {
            q: " LEDGER ".into(),
            ..ListFilter::default()
        };
        assert_eq!(slugs(search), ["ledger"], "name, id or audience");
        let uri = ListFilter {
            q: "z.example".into(),
            ..ListFilter::default()
        };
        assert_eq!(slugs(uri), ["pay"]);
        let disabled = ListFilter {
            status: "disabled".into(),
            ..ListFilter::default()
        };
        assert_eq!(slugs(disabled.clone()), ["files"]);
        assert!(disabled.narrows());
        assert!(
            !ListFilter {
                by_audience: true,
                ..ListFilter::default()
            }
            .narrows()
        );
    }
}
