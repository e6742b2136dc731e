//! Provider profiles: conservative defaults for well-known hosted MCP servers.
//!
//! A server's `profile` fills in what the entry leaves out (the provider's URL, its OAuth
//! settings) and bounds its tools: only the profile's tools can be allowed, whatever the entry
//! says. Notion is read-first; Gmail's hosted server is a Developer Preview, so its
//! profile is opt-in by name (`gmail-preview`) and offers search, reading and drafts — never
//! sending or deleting.
use super::{AuthInput, ServerInput};
use crate::field::Findings;

/// A provider profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Notion's hosted MCP server, read-first.
    Notion,
    /// Gmail's hosted MCP server (a Developer Preview): search, read, draft.
    GmailPreview,
}

impl Profile {
    /// Every profile.
    pub const ALL: [Profile; 2] = [Profile::Notion, Profile::GmailPreview];

    /// Its name in a server entry.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Notion => "notion",
            Profile::GmailPreview => "gmail-preview",
        }
    }

    /// What people see.
    pub fn label(self) -> &'static str {
        match self {
            Profile::Notion => "Notion (read-first)",
            Profile::GmailPreview => "Gmail (Developer Preview: search, read, draft)",
        }
    }

    /// Whether the provider labels its server a preview (its contract may change).
    pub fn preview(self) -> bool {
        matches!(self, Profile::GmailPreview)
    }

    /// The provider's hosted server.
    pub fn url(self) -> &'static str {
        match self {
            Profile::Notion => "https://mcp.notion.com/mcp",
            Profile::GmailPreview => "https://gmailmcp.googleapis.com/mcp/v1",
        }
    }

    /// The only tools the profile lets through (the provider's own names).
    pub fn tools(self) -> &'static [&'static str] {
        match self {
            // Search and read pages, and follow an asynchronous search: nothing that writes.
            Profile::Notion => &["notion-search", "notion-fetch", "notion-get-async-task"],
            // Search and read mail, and write a draft a person sends themselves. Sending,
            // deleting, trashing and labelling are never offered.
            Profile::GmailPreview => &[
                "search_threads",
                "get_thread",
                "get_message",
                "create_draft",
            ],
        }
    }

    /// What the gateway adds to its authorization requests at the provider's authorization
    /// server: Google gives a refresh token only to clients asking for offline access, and
    /// only with a fresh consent.
    pub fn authorization_params(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Profile::Notion => &[],
            Profile::GmailPreview => &[("access_type", "offline"), ("prompt", "consent")],
        }
    }

    /// The provider's authentication: its own OAuth authorization server, each person's own
    /// account.
    fn auth(self) -> AuthInput {
        match self {
            Profile::Notion => AuthInput {
                mode: "oauth".into(),
                ..Default::default()
            },
            Profile::GmailPreview => AuthInput {
                mode: "oauth".into(),
                issuer: Some("https://accounts.google.com".into()),
                scopes: vec![
                    "https://www.googleapis.com/auth/gmail.readonly".into(),
                    "https://www.googleapis.com/auth/gmail.compose".into(),
                ],
                ..Default::default()
            },
        }
    }

    /// The profile a server entry names.
    pub fn parse(s: &str) -> Option<Profile> {
        Self::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

/// `input` with its profile's defaults filled in and its tools bounded by the profile, and the
/// profile; findings for what the profile refuses. Without a profile, `input` as it is.
pub(super) fn apply(input: &ServerInput, f: &mut Findings) -> (ServerInput, Option<Profile>) {
    let Some(name) = input
        .profile
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty())
    else {
        return (input.clone(), None);
    };
    let Some(profile) = Profile::parse(name) else {
        let known: Vec<&str> = Profile::ALL.iter().map(|p| p.as_str()).collect();
        let message = if name == "gmail" {
            "Gmail's hosted MCP server is a Developer Preview: name the profile gmail-preview to opt in.".to_owned()
        } else {
            format!(
                "{}: no such profile (known: {}).",
                crate::names::shown(name),
                known.join(", ")
            )
        };
        f.error("profile", message);
        return (input.clone(), None);
    };
    let mut out = input.clone();
    out.profile = Some(profile.as_str().to_owned());
    if input.package.is_some() || input.command.is_some() {
        f.error(
            "profile",
            format!(
                "The {} profile is for the provider's hosted server (a url).",
                profile.as_str()
            ),
        );
        return (out, Some(profile));
    }
    let at_provider = match input.url.as_deref().map(str::trim) {
        None => {
            out.url = Some(profile.url().to_owned());
            true
        }
        Some(url) if url.trim_end_matches('/') != profile.url() => {
            f.warn(
                "url",
                format!(
                    "Not the provider's hosted server ({}): the profile's tool rules still apply, its sign-in settings do not.",
                    profile.url()
                ),
            );
            false
        }
        Some(_) => true,
    };
    // The provider's OAuth settings, for what the entry leaves out (an entry naming its
    // client id still gets the provider's authorization server and scopes) — only for the
    // provider's own server: the provider's tokens never go to another URL on its behalf.
    let defaults = profile.auth();
    out.auth = match input.auth.clone() {
        None if at_provider => Some(defaults),
        // An entry giving only its client id (no mode) means the provider's OAuth too.
        Some(mut a)
            if at_provider && (a.mode.trim() == defaults.mode || a.mode.trim().is_empty()) =>
        {
            a.mode = defaults.mode.clone();
            if a.issuer.is_none() {
                a.issuer = defaults.issuer;
            }
            if a.scopes.is_empty() {
                a.scopes = defaults.scopes;
            }
            Some(a)
        }
        other => other,
    };
    // Google takes neither client metadata documents nor dynamic registration.
    if profile == Profile::GmailPreview
        && out
            .auth
            .as_ref()
            .is_some_and(|a| a.mode == "oauth" && a.client_id.is_none())
    {
        // A warning, not an error: a release published before is still served as it was.
        f.warn(
            "auth.clientId",
            "Google issues OAuth clients only by registration (Google Cloud console): set the client id it gave you, or no one can connect.",
        );
    }
    let allowed = profile.tools();
    let outside: Vec<&str> = input
        .tools
        .allow
        .iter()
        .map(String::as_str)
        .filter(|t| !allowed.contains(t))
        .collect();
    if !outside.is_empty() {
        f.error(
            "tools.allow",
            format!(
                "The {} profile offers only {}: {} cannot be allowed (remove the profile to decide every tool yourself).",
                profile.as_str(),
                allowed.join(", "),
                outside.join(", ")
            ),
        );
    }
    if input.tools.allow.is_empty() {
        out.tools.allow = allowed.iter().map(|t| (*t).to_owned()).collect();
    }
    if profile.preview() {
        f.warn(
            "profile",
            format!(
                "{}: the provider may change or break this server's contract.",
                profile.label()
            ),
        );
    }
    (out, Some(profile))
}
