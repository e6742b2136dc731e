//! Identity chaining types: an authorization server that trusts this realm, as stored and as
//! typed.
use crate::clients::{Client, ClientId};
use crate::clock::UnixTime;
use crate::ids::{ClientRowId, RealmId};
use crate::scope::ScopeSet;

pub use crate::ids::TrustingServerId;

/// Most trusting authorization servers one realm lists.
pub const MAX_TRUSTING_SERVERS: usize = 20;
/// Most clients one trusting server lists.
pub const MAX_SERVER_CLIENTS: usize = 50;
/// Most resources one trusting server lists.
pub const MAX_SERVER_RESOURCES: usize = 50;
/// How long an ID-JAG lives: presented at once, and the draft asks for minutes.
pub const ID_JAG_TTL_SECS: i64 = 300;
/// Longest client id another server gives a client.
pub const MAX_REMOTE_CLIENT_ID_LEN: usize = 255;

/// One of the realm's clients and the `client_id` the trusting server knows it by (the ID-JAG's
/// `client_id` claim).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientLink {
    /// The client here.
    pub client_id: ClientId,
    /// Its `client_id` there.
    pub known_as: String,
    /// The client's row when the entry was saved: a client deleted and created again under the
    /// same id is not listed until an administrator saves the entry again. `None` only as typed.
    pub client_pk: Option<ClientRowId>,
}

/// An authorization server that accepts this realm's ID-JAGs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustingServer {
    /// Row id.
    pub id: TrustingServerId,
    /// Realm.
    pub realm_id: RealmId,
    /// Its issuer: the `audience` a client names, and the ID-JAG's `aud`.
    pub issuer: String,
    /// Shown in the console and audit log.
    pub display_name: String,
    /// The resources (its MCP servers) ID-JAGs may name, exactly as it knows them.
    pub resources: Vec<String>,
    /// The scopes ID-JAGs may carry; empty: whatever the client asks (that server decides).
    pub scopes: ScopeSet,
    /// The clients that may ask for ID-JAGs for it; no one else may.
    pub clients: Vec<ClientLink>,
    /// A disabled server gets no ID-JAGs.
    pub enabled: bool,
    /// Creation time.
    pub created_at: UnixTime,
    /// Last change.
    pub updated_at: UnixTime,
}

impl TrustingServer {
    /// How `client` is known there, if it may ask for ID-JAGs for this server: the very
    /// client (row) listed.
    pub fn link_of(&self, client: &Client) -> Option<&ClientLink> {
        self.clients
            .iter()
            .find(|l| l.client_id == client.client_id && l.client_pk.as_ref() == Some(&client.id))
    }

    /// The listed resource a request names (a trailing slash either way is the same one).
    pub fn resource(&self, asked: &str) -> Option<&str> {
        let bare = asked.trim_end_matches('/');
        self.resources
            .iter()
            .find(|r| r.trim_end_matches('/') == bare)
            .map(String::as_str)
    }
}

/// A trusting server as typed into the console or the CLI.
#[derive(Debug, Clone, Default)]
pub struct TrustingServerInput {
    /// Its issuer.
    pub issuer: String,
    /// Display name (defaults to the issuer's host).
    pub display_name: String,
    /// Resources, separated by spaces, commas or lines.
    pub resources: String,
    /// Scopes, separated by spaces (empty: any).
    pub scopes: String,
    /// Clients, one per line or separated by commas: `client-id` or `client-id -> id-there`.
    pub clients: String,
}

/// Checked settings of a trusting server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustingServerFields {
    /// Issuer.
    pub issuer: String,
    /// Display name.
    pub display_name: String,
    /// Resources.
    pub resources: Vec<String>,
    /// Scopes.
    pub scopes: ScopeSet,
    /// Clients.
    pub clients: Vec<ClientLink>,
}

/// Parses the resources ID-JAGs may name: absolute `https` URLs (plain `http` on loopback in
/// development) without fragment or credentials, at least one.
///
/// # Errors
/// A message fit for the form, naming the bad one.
pub fn parse_resources(s: &str, allow_http_loopback: bool) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for r in s
        .split([' ', ',', '\n', '\r', '\t'])
        .filter(|r| !r.is_empty())
    {
        let uri = crate::resources::ResourceUri::parse(r, allow_http_loopback)
            .map_err(|m| format!("{r:.80}: {m}"))?;
        let uri = uri.to_string();
        if !out
            .iter()
            .any(|o| o.trim_end_matches('/') == uri.trim_end_matches('/'))
        {
            out.push(uri);
        }
    }
    if out.is_empty() {
        return Err("Name at least one resource (an MCP server that authorization server protects): ID-JAGs name only the resources listed.".into());
    }
    if out.len() > MAX_SERVER_RESOURCES {
        return Err(format!("At most {MAX_SERVER_RESOURCES} resources."));
    }
    Ok(out)
}

/// Parses the clients that may ask for ID-JAGs: one per line (or separated by commas),
/// `client-id` when the other server knows it by the same id, else `client-id -> id-there`.
///
/// # Errors
/// A message fit for the form, naming the bad line.
pub fn parse_client_links(s: &str) -> Result<Vec<ClientLink>, String> {
    let mut out: Vec<ClientLink> = Vec::new();
    for line in s
        .split(['\n', ','])
        .map(str::trim)
        .filter(|l| !l.is_empty())
    {
        let (ours, theirs) = match line.split_once("->").or_else(|| line.split_once('→')) {
            Some((a, b)) => (a.trim(), b.trim()),
            None if line.split_whitespace().count() == 1 => (line, line),
            None => {
                return Err(format!(
                    "{line:.80}: write one client per line, as client-id or client-id -> its id there."
                ));
            }
        };
        let client_id = ClientId::parse(ours).map_err(|m| format!("{ours:.60}: {m}"))?;
        if theirs.is_empty()
            || theirs.len() > MAX_REMOTE_CLIENT_ID_LEN
            || theirs.chars().any(|c| c.is_control() || c.is_whitespace())
        {
            return Err(format!(
                "{line:.80}: the id there must be 1 to {MAX_REMOTE_CLIENT_ID_LEN} characters without spaces."
            ));
        }
        if out.iter().any(|l| l.client_id == client_id) {
            return Err(format!("{ours:.60} is listed twice."));
        }
        out.push(ClientLink {
            client_id,
            known_as: theirs.to_owned(),
            client_pk: None,
        });
    }
    if out.is_empty() {
        return Err("Name at least one client: only the clients listed may ask for ID-JAGs for this server.".into());
    }
    if out.len() > MAX_SERVER_CLIENTS {
        return Err(format!("At most {MAX_SERVER_CLIENTS} clients."));
    }
    Ok(out)
}

/// The clients as the form shows them: one per line, `-> id` only where the ids differ.
pub fn client_links_text(links: &[ClientLink]) -> String {
    links
        .iter()
        .map(|l| {
            if l.known_as == l.client_id.as_str() {
                l.client_id.to_string()
            } else {
                format!("{} -> {}", l.client_id, l.known_as)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl TrustingServerInput {
    /// Checks every field; every problem is reported at once.
    ///
    /// # Errors
    /// `InvalidField`, or `Findings` for several.
    pub fn validate(
        &self,
        allow_http_loopback: bool,
    ) -> crate::error::Result<TrustingServerFields> {
        let mut checks = crate::error::FieldChecks::default();
        let issuer = checks.take(
            "issuer",
            crate::federation::parse_issuer(&self.issuer, allow_http_loopback),
        );
        let display_name = match self.display_name.trim() {
            "" => issuer.as_deref().and_then(|i| {
                url::Url::parse(i)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_owned))
            }),
            n => checks.take("display_name", crate::realms::parse_display_name(n, "Name")),
        };
        let resources = checks.take(
            "resources",
            parse_resources(&self.resources, allow_http_loopback),
        );
        let scopes = checks.take(
            "scopes",
            ScopeSet::parse(self.scopes.trim()).map_err(|m| format!("Scopes: {m}")),
        );
        let clients = checks.take("clients", parse_client_links(&self.clients));
        checks.finish()?;
        let (Some(issuer), Some(display_name), Some(resources), Some(scopes), Some(clients)) =
            (issuer, display_name, resources, scopes, clients)
        else {
            return Err(crate::error::Error::field(
                "issuer",
                "The issuer must have a host.",
            ));
        };
        Ok(TrustingServerFields {
            issuer,
            display_name,
            resources,
            scopes,
            clients,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_lines_name_the_id_there_only_when_it_differs() {
        let links = parse_client_links("desk-app\nmail-agent -> 0oa8f5j3xY, ops").expect("ok");
        assert_eq!(links.len(), 3);
        assert_eq!(
            parse_client_links("mail-agent → 0oa8f5j3xY").expect("the arrow the card shows"),
            links[1..2]
        );
        assert_eq!(links[0].known_as, "desk-app");
        assert_eq!(links[1].client_id.as_str(), "mail-agent");
        assert_eq!(links[1].known_as, "0oa8f5j3xY");
        assert_eq!(
            client_links_text(&links),
            "desk-app\nmail-agent -> 0oa8f5j3xY\nops"
        );
        for bad in ["", "a b", "a -> ", "a -> b c", "a\na -> b"] {
            assert!(parse_client_links(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn resources_are_urls_and_match_with_or_without_a_trailing_slash() {
        let r = parse_resources(
            "https://pay.example.com/mcp, https://mail.example.com/",
            false,
        )
        .expect("ok");
        let server = TrustingServer {
            id: TrustingServerId::generate(),
            realm_id: RealmId::generate(),
            issuer: "https://as.example.com".into(),
            display_name: "AS".into(),
            resources: r,
            scopes: ScopeSet::default(),
            clients: vec![],
            enabled: true,
            created_at: 0,
            updated_at: 0,
        };
        assert_eq!(
            server.resource("https://pay.example.com/mcp/"),
            Some("https://pay.example.com/mcp")
        );
        assert_eq!(
            server.resource("https://mail.example.com"),
            Some("https://mail.example.com/")
        );
        assert_eq!(server.resource("https://pay.example.com/mcp/x"), None);
        assert!(parse_resources("", false).is_err());
        assert!(parse_resources("http://pay.example.com/mcp", false).is_err());
        assert!(parse_resources("not a url", false).is_err());
    }
}
