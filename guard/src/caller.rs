//! The verified caller a handler receives.
use axum::extract::FromRequestParts;
use axum::response::{IntoResponse, Response};
use http::request::Parts;
use portcullis_claims::{AccessTokenClaims, Actor, AgentClaims};

/// Who called: the verified claims of the request's access token.
///
/// The guard's layer puts it into the request's extensions; take it as an axum extractor
/// (`async fn tool(caller: Caller)`) or, where only the request parts are at hand (an `rmcp`
/// tool receiving `Extension<http::request::Parts>`), with [`Caller::from_extensions`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    claims: AccessTokenClaims,
}

impl Caller {
    pub(crate) fn new(claims: AccessTokenClaims) -> Self {
        Self { claims }
    }

    /// The caller of a request the guard let through.
    pub fn from_extensions(extensions: &http::Extensions) -> Option<&Self> {
        extensions.get::<Self>()
    }

    /// `sub`: the person's id for tokens issued to people, the client's for machine tokens.
    pub fn subject(&self) -> &str {
        &self.claims.sub
    }

    /// The client the token was issued to.
    pub fn client_id(&self) -> &str {
        &self.claims.client_id
    }

    /// The granted scopes.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.claims.scopes()
    }

    /// Whether the token carries `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes().any(|s| s == scope)
    }

    /// The agent (non-human identity) the client acts for, when it acts for one: its id,
    /// name, owner and roles.
    pub fn agent(&self) -> Option<&AgentClaims> {
        self.claims.agent.as_ref()
    }

    /// The agent's roles (empty when no agent is behind the token).
    pub fn roles(&self) -> &[String] {
        self.agent().map_or(&[], |a| a.roles.as_slice())
    }

    /// `aud`: this resource, the only one the token is good for.
    pub fn audience(&self) -> &str {
        &self.claims.aud
    }

    /// `exp`, in Unix seconds.
    pub fn expires_at(&self) -> i64 {
        self.claims.exp
    }

    /// `jti`: the token's unique id (what revocation names).
    pub fn token_id(&self) -> &str {
        &self.claims.jti
    }

    /// `act` (RFC 8693 §4.1): who is acting for the subject when the token came from a token
    /// exchange — the most recent actor first, each naming its client (`sub`) and agent.
    /// `None` for a token the subject's own client got directly.
    pub fn actor(&self) -> Option<&Actor> {
        self.claims.act.as_ref()
    }

    /// The actors of the delegation chain, most recent first (empty without `act`).
    pub fn actors(&self) -> impl Iterator<Item = &Actor> {
        self.claims.act.iter().flat_map(Actor::chain)
    }

    /// `mcp_server`: the registry id of this server when the token was minted for it as a
    /// server of the published registry.
    pub fn mcp_server(&self) -> Option<&str> {
        self.claims.mcp_server.as_deref()
    }

    /// `mcp_release`: the registry release whose policy allowed the token.
    pub fn mcp_release(&self) -> Option<&str> {
        self.claims.mcp_release.as_deref()
    }

    /// Every claim, as Portcullis issued them.
    pub fn claims(&self) -> &AccessTokenClaims {
        &self.claims
    }
}

/// A handler took a [`Caller`] on a route the guard's layer does not cover: a bug in the
/// server, answered with 500.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MissingGuard;

impl IntoResponse for MissingGuard {
    fn into_response(self) -> Response {
        tracing::error!("A handler asked for the caller on a route without the guard layer");
        (
            http::StatusCode::INTERNAL_SERVER_ERROR,
            "The guard layer does not cover this route.",
        )
            .into_response()
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = MissingGuard;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Self::from_extensions(&parts.extensions)
            .cloned()
            .ok_or(MissingGuard)
    }
}
