//! OpenID Connect ID tokens (OpenID Connect Core §2): who signed in, for the client that asked
//! with `openid`, beside the access token of the code grant and of every refresh of its family;
//! and their verification when a client trades one for an ID-JAG.
use crate::authorize::OpenId;
use crate::clients::Client;
use crate::clock::UnixTime;
use crate::core::Core;
use crate::error::{Error, Result};
use crate::keys::{SigningAlg, decode_unverified};
use crate::people::Subject;
use crate::realms::Realm;
use serde::{Deserialize, Serialize};

/// How long an ID token is good for. It says who signed in; the client keeps its session with
/// refresh tokens, and trades the ID token for an ID-JAG soon after it gets it.
pub const ID_TOKEN_TTL_SECS: i64 = 15 * 60;
/// ID tokens are signed with RS256: what OpenID Connect relying parties expect when they
/// registered no other algorithm (Core §3.1.3.7; Discovery §3 requires it be offered).
pub const ID_TOKEN_ALG: SigningAlg = SigningAlg::RS256;
/// The `typ` of an ID token's header.
pub const ID_TOKEN_TYP: &str = "JWT";

/// The claims of an ID token this server issues.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdTokenClaims {
    /// The realm's issuer.
    pub iss: String,
    /// The person (`psn_…`) or console account (`usr_…`): the `sub` of their access tokens.
    pub sub: String,
    /// The client's `client_id`.
    pub aud: String,
    /// The client's `client_id` again (the authorized party).
    pub azp: String,
    /// Expiry.
    pub exp: UnixTime,
    /// Issued.
    pub iat: UnixTime,
    /// When they signed in.
    pub auth_time: UnixTime,
    /// The authorization request's `nonce`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
    /// Their email, with the `email` scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// With the email: `true`. Nobody types their own address into a realm; administrators
    /// set it, or a provider the realm vouches for gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email_verified: Option<bool>,
    /// Their name, with the `profile` scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Core {
    /// Signs an ID token for `client` about `subject`, saying what `openid` asked for.
    pub(crate) async fn sign_id_token(
        &self,
        realm: &Realm,
        client: &Client,
        subject: &Subject,
        (openid, nonce): (OpenId, Option<&str>),
        auth_time: UnixTime,
    ) -> Result<String> {
        let now = self.now();
        let claims = IdTokenClaims {
            iss: self.issuer(&realm.name),
            sub: subject.id.clone(),
            aud: client.client_id.to_string(),
            azp: client.client_id.to_string(),
            exp: now + ID_TOKEN_TTL_SECS,
            iat: now,
            auth_time,
            nonce: nonce.map(str::to_owned),
            email: openid.email.then(|| subject.email.clone()),
            email_verified: openid.email.then_some(true),
            name: openid.profile.then(|| subject.display_name.clone()),
        };
        let keys = self.realm_keys(realm, Some(ID_TOKEN_ALG)).await?;
        let signer = keys
            .signer(ID_TOKEN_ALG)
            .ok_or_else(|| Error::Internal(format!("no active {ID_TOKEN_ALG} key")))?;
        signer.sign(ID_TOKEN_TYP, &claims).map_err(Error::Internal)
    }

    /// An ID token this realm issued: signature by one of its published keys, `typ`, `iss`
    /// and shape. Expiry and audience are the caller's to check. `None` for anything else
    /// (an access token, an ID-JAG, another realm's token).
    pub(crate) async fn verify_id_token(
        &self,
        realm: &Realm,
        token: &str,
    ) -> Result<Option<IdTokenClaims>> {
        let Ok((header, _)) = decode_unverified(token) else {
            return Ok(None);
        };
        if header.typ.as_deref() != Some(ID_TOKEN_TYP) || header.alg != ID_TOKEN_ALG.as_str() {
            return Ok(None);
        }
        let keys = self.realm_keys(realm, None).await?;
        let Some(verifier) = header.kid.as_deref().and_then(|kid| keys.verifier(kid)) else {
            return Ok(None);
        };
        let Ok((_, claims)) = verifier.verify(token) else {
            return Ok(None);
        };
        let Ok(claims) = serde_json::from_value::<IdTokenClaims>(claims) else {
            return Ok(None);
        };
        Ok((claims.iss == self.issuer(&realm.name)).then_some(claims))
    }
}
