//! Dynamic registration types: the registration endpoint's answer and the parsing of its
//! body. Pure: the operations are in `ops.rs`.
use crate::clients::metadata::ClientMetadata;
use crate::error::{Error, Result};
use serde::Serialize;

/// Longest lifetime of an initial access token: 30 days.
pub const MAX_INITIAL_TOKEN_TTL_SECS: i64 = 30 * 24 * 3600;

/// The registration endpoint's answer (RFC 7591 §3.2.1, RFC 7592 §3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegistrationResponse {
    /// `client_id`.
    pub client_id: String,
    /// `client_secret`, once, for confidential clients.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// `client_id_issued_at`.
    pub client_id_issued_at: i64,
    /// `client_secret_expires_at`: 0 (never) for clients with a secret.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_secret_expires_at: Option<i64>,
    /// `registration_access_token`, once, at registration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registration_access_token: Option<String>,
    /// `registration_client_uri`.
    pub registration_client_uri: String,
    /// `client_name`.
    pub client_name: String,
    /// `token_endpoint_auth_method`.
    pub token_endpoint_auth_method: &'static str,
    /// `grant_types`.
    pub grant_types: Vec<&'static str>,
    /// `response_types`.
    pub response_types: Vec<&'static str>,
    /// `redirect_uris`.
    pub redirect_uris: Vec<String>,
    /// `scope`, when it registered one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// `application_type`, when it declared one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub application_type: Option<crate::clients::model::ApplicationType>,
    /// `contacts`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contacts: Vec<String>,
    /// `client_uri`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_uri: Option<String>,
    /// `logo_uri`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logo_uri: Option<String>,
    /// `software_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub software_id: Option<String>,
    /// `software_version`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub software_version: Option<String>,
    /// `jwks_uri`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jwks_uri: Option<String>,
    /// Where its security review stands (an extension member: RFC 7591 §3.2.1 lets a server
    /// return more): `pending` until a reviewer approves it, then `approved`; `rejected`,
    /// `revoked` or `expired` after a decision against it.
    pub review_status: &'static str,
    /// In words, while it is not approved: why it gets no tokens yet and where a reviewer
    /// lets it in (whoever ran the registration reads it in their terminal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review_note: Option<String>,
}

/// Parses a registration request body: a JSON object of RFC 7591 metadata (unknown members
/// ignored). A member of the wrong type is `invalid_client_metadata`, naming it.
///
/// # Errors
/// `InvalidField` (rendered as `invalid_client_metadata`).
pub fn parse_registration_body(body: &str) -> Result<ClientMetadata> {
    let value: serde_json::Value = serde_json::from_str(body).map_err(|_| {
        Error::field(
            "client_metadata",
            "The body must be a JSON object of client metadata.",
        )
    })?;
    if !value.is_object() {
        return Err(Error::field(
            "client_metadata",
            "The body must be a JSON object of client metadata.",
        ));
    }
    serde_json::from_value(value).map_err(|e| {
        // serde names the member and the expected type; no input is echoed beyond that.
        let msg: String = e.to_string().chars().take(200).collect();
        Error::field(
            "client_metadata",
            format!("Malformed client metadata: {msg}"),
        )
    })
}
