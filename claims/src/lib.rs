//! The claims of Portcullis access tokens (RFC 9068), as one type that the authorization server
//! serialises when it issues a token and every reader (introspection, tests, the
//! `portcullis-guard` resource-server guard) deserialises.
//!
//! It depends on nothing but serde: a resource server reads a verified token's payload with
//! `serde_json::from_slice::<AccessTokenClaims>(…)` and gets the same typed claims the issuer wrote.
#![forbid(unsafe_code)]
use serde::{Deserialize, Serialize};

/// The JWT `typ` of access tokens (RFC 9068 §2.1).
pub const ACCESS_TOKEN_TYP: &str = "at+jwt";

/// The claims of an access token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessTokenClaims {
    /// Issuer: the realm's issuer URL.
    pub iss: String,
    /// Subject: the client (machine tokens) or the user.
    pub sub: String,
    /// Audience: exactly one resource's canonical URI (RFC 8707).
    pub aud: String,
    /// The client the token was issued to.
    pub client_id: String,
    /// Granted scopes, space-delimited.
    pub scope: String,
    /// Issued at (Unix seconds).
    pub iat: i64,
    /// Expires at (Unix seconds).
    pub exp: i64,
    /// Unique token id (revocation is remembered by it).
    pub jti: String,
    /// The agent (non-human identity) the client acts for, when it acts for one.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentClaims>,
    /// The delegation chain of an exchanged token (RFC 8693 §4.1): who acts for the subject,
    /// the most recent actor outermost. Absent when nobody acts for anyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub act: Option<Actor>,
    /// The registry server the token was minted for (its id in the realm's MCP registry),
    /// when the registry's release is what allowed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_server: Option<String>,
    /// The registry release that allowed it (its content digest), with `mcp_server`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_release: Option<String>,
    /// Which stored rows the token was minted from.
    #[serde(rename = "portcullis")]
    pub origin: TokenOrigin,
}

/// One actor of a delegation chain (RFC 8693 §4.1): a client acting for the token's subject,
/// and the actor before it, if any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actor {
    /// The acting client's `client_id`.
    pub sub: String,
    /// The agent that client acts for, when it acts for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// That agent's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_name: Option<String>,
    /// The actor before this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub act: Option<Box<Actor>>,
}

impl Actor {
    /// This actor and every one before it, most recent first.
    pub fn chain(&self) -> impl Iterator<Item = &Actor> {
        std::iter::successors(Some(self), |a| a.act.as_deref())
    }

    /// How many actors the chain holds.
    pub fn depth(&self) -> usize {
        self.chain().count()
    }
}

/// The identity of the agent a token was issued for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentClaims {
    /// Always `true`: the caller is a non-human identity.
    pub nhi: bool,
    /// The agent's id.
    pub agent_id: String,
    /// Its name.
    pub agent_name: String,
    /// Its owner's email.
    pub agent_owner: String,
    /// Its roles.
    pub roles: Vec<String>,
}

/// The rows a token was minted from: opaque ids that are never reused.
///
/// A token is alive only while the rows it names still exist (and the client is still bound by
/// the same binding), so deleting a client, resource or agent binding and creating one with the
/// same name, URI or agent never revives it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenOrigin {
    /// The client's row id.
    pub client: String,
    /// The resource's row id.
    pub resource: String,
    /// The client's agent binding, when it acts for an agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<String>,
    /// The token family (a person's authorization) it was minted from, for tokens issued by
    /// the authorization code and refresh grants: revoking the family kills them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// The client's token epoch when the token was minted: revoking a client moves its epoch
    /// on, so its earlier tokens stay dead even when the client is restored. Omitted when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub epoch: i64,
    /// For a token minted by token exchange (RFC 8693): the token it was exchanged from. It is
    /// alive only while that one's identities are (revoking the person's authorization, the
    /// subject token or its client ends both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<Box<SubjectOrigin>>,
}

/// The token a token was exchanged from: its id, its client, and the rows it was minted from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubjectOrigin {
    /// Its `jti`.
    pub jti: String,
    /// Its `client_id`.
    pub client_id: String,
    /// Its rows (and, when it was exchanged itself, its own subject).
    pub origin: TokenOrigin,
}

impl TokenOrigin {
    /// The tokens this one was exchanged from, the most recent first.
    pub fn subjects(&self) -> impl Iterator<Item = &SubjectOrigin> {
        std::iter::successors(self.subject.as_deref(), |s| s.origin.subject.as_deref())
    }

    /// The family (a person's authorization) at the root of the exchange chain, or of the
    /// token itself.
    pub fn root_family(&self) -> Option<&str> {
        self.subjects()
            .last()
            .map_or(self.family.as_deref(), |s| s.origin.family.as_deref())
    }
}

// serde's `skip_serializing_if` passes a reference.
fn is_zero(n: &i64) -> bool {
    *n == 0
}

impl AccessTokenClaims {
    /// The granted scopes.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scope.split(' ').filter(|s| !s.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_and_without_an_agent() {
        let mut c = AccessTokenClaims {
            iss: "https://id.example.com/realms/default".into(),
            sub: "bot".into(),
            aud: "https://mcp.example.com/".into(),
            client_id: "bot".into(),
            scope: "tools:call tools:read".into(),
            iat: 1,
            exp: 2,
            jti: "at_1".into(),
            agent: None,
            act: None,
            mcp_server: None,
            mcp_release: None,
            origin: TokenOrigin {
                client: "cli_1".into(),
                resource: "res_1".into(),
                binding: None,
                family: None,
                epoch: 0,
                subject: None,
            },
        };
        let json = serde_json::to_value(&c).expect("json");
        assert!(json.get("nhi").is_none() && json.get("agent_id").is_none());
        assert!(
            json["portcullis"].get("epoch").is_none(),
            "epoch 0 is left out: tokens from before epochs read the same"
        );
        assert_eq!(json["portcullis"]["client"], "cli_1");
        assert_eq!(
            serde_json::from_value::<AccessTokenClaims>(json).expect("back"),
            c
        );
        c.agent = Some(AgentClaims {
            nhi: true,
            agent_id: "agt_1".into(),
            agent_name: "reports".into(),
            agent_owner: "o@example.com".into(),
            roles: vec!["mcp:tools".into()],
        });
        let json = serde_json::to_value(&c).expect("json");
        assert_eq!(json["nhi"], true);
        assert_eq!(json["agent_id"], "agt_1");
        assert_eq!(
            serde_json::from_value::<AccessTokenClaims>(json).expect("back"),
            c
        );
        assert_eq!(c.scopes().collect::<Vec<_>>(), ["tools:call", "tools:read"]);
    }

    #[test]
    fn an_exchanged_token_carries_its_actors_and_where_it_came_from() {
        let json = serde_json::json!({
            "iss": "https://id.example.com/realms/default",
            "sub": "psn_1",
            "aud": "https://wiki.example.com/mcp",
            "client_id": "gateway",
            "scope": "tools:call",
            "iat": 1,
            "exp": 2,
            "jti": "at_2",
            "act": {"sub": "gateway", "act": {"sub": "portcullis-cli"}},
            "mcp_server": "wiki",
            "mcp_release": "ab12",
            "portcullis": {
                "client": "cli_2",
                "resource": "res_2",
                "subject": {
                    "jti": "at_1",
                    "client_id": "portcullis-cli",
                    "origin": {"client": "cli_1", "resource": "res_1", "family": "fam_1"}
                }
            }
        });
        let c: AccessTokenClaims = serde_json::from_value(json.clone()).expect("claims");
        let act = c.act.as_ref().expect("act");
        assert_eq!(
            act.chain().map(|a| a.sub.as_str()).collect::<Vec<_>>(),
            ["gateway", "portcullis-cli"],
            "the most recent actor outermost"
        );
        assert_eq!(act.depth(), 2);
        assert_eq!(c.mcp_server.as_deref(), Some("wiki"));
        assert_eq!(c.origin.family, None);
        assert_eq!(c.origin.root_family(), Some("fam_1"));
        assert_eq!(c.origin.subjects().count(), 1);
        assert_eq!(serde_json::to_value(&c).expect("json"), json, "round trip");
    }
}
