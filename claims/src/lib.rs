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
    /// Which stored rows the token was minted from.
    #[serde(rename = "portcullis")]
    pub origin: TokenOrigin,
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
            origin: TokenOrigin {
                client: "cli_1".into(),
                resource: "res_1".into(),
                binding: None,
                family: None,
                epoch: 0,
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
}
