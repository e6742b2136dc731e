//! What the gateway sends each upstream for the caller: nothing, a token exchanged for it
//! (`auth.mode = portcullis`), or the calling person's own account's token (`auth.mode =
//! oauth`); and what a caller's connection to an upstream is kept under.
use super::Facade;
use crate::upstream::UpstreamError;
use authz::gateway::{GatewayCaller, GatewayServer, UpstreamAuth};

impl Facade {
    /// The upstream token for `server`, exchanged for the caller when the server takes
    /// Portcullis tokens.
    pub(super) async fn token(
        &self,
        caller: &GatewayCaller,
        server: &GatewayServer,
        url: &str,
    ) -> Result<Option<(String, i64)>, UpstreamError> {
        match server.auth {
            UpstreamAuth::None => Ok(None),
            UpstreamAuth::Portcullis => self
                .gateway
                .inner
                .core
                .gateway_upstream_token(caller, url)
                .await
                .map(Some)
                .map_err(|e| UpstreamError::NoToken(e.to_string())),
            // The calling person's own account there, never anyone else's.
            UpstreamAuth::OAuth => {
                let core = &self.gateway.inner.core;
                match core.gateway_person_token(caller, &server.server).await {
                    Ok(Some(token)) => Ok(Some(token)),
                    Ok(None) => Err(UpstreamError::NotConnected(
                        core.gateway_connect_url(&caller.realm, &server.server.id),
                    )),
                    Err(e) => Err(UpstreamError::NoToken(e.to_string())),
                }
            }
        }
    }

    /// What the caller's connection to `server` is kept under: the caller, and for a server
    /// the calling person connects their own account at, that connection's version — so a
    /// disconnected or replaced account is never used again, whatever the gateway still holds
    /// (it may hold a token that is still valid).
    pub(super) async fn connection_key(
        &self,
        caller: &GatewayCaller,
        server: &GatewayServer,
    ) -> Result<String, UpstreamError> {
        if server.auth != UpstreamAuth::OAuth {
            return Ok(caller.key());
        }
        let core = &self.gateway.inner.core;
        match core
            .gateway_person_connection(caller, &server.server.id)
            .await
        {
            Ok(Some(version)) => Ok(format!(
                "{}\u{1f}{}\u{1f}{version}",
                caller.key(),
                server.server.id
            )),
            Ok(None) => Err(UpstreamError::NotConnected(
                core.gateway_connect_url(&caller.realm, &server.server.id),
            )),
            Err(e) => Err(UpstreamError::NoToken(e.to_string())),
        }
    }

    /// After the server refused the token sent for the caller: a person's own token is
    /// refreshed at the next call (or, refused too, their connection ends).
    pub(super) async fn token_refused(&self, caller: &GatewayCaller, server: &GatewayServer) {
        if server.auth == UpstreamAuth::OAuth
            && let Err(e) = self
                .gateway
                .inner
                .core
                .expire_gateway_person_token(caller, &server.server.id)
                .await
        {
            tracing::error!(error = %e, "gateway: marking a refused upstream token failed");
        }
    }
}
