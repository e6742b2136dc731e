//! OpenID Connect ID tokens (OpenID Connect Core §2): who signed in, for the client that asked
//! with `openid`, beside the access token of the code grant and of every refresh of its family;
//! and their verification when a client trades one for an ID-JAG.
use crate::authorize::{FamilyId, OpenId};
use crate::clients::Client;
use crate::clock::UnixTime;
use crate::core::Core;
use crate::error::{Error, Result};
use crate::keys::decode_unverified;
use crate::people::Subject;
use crate::realms::Realm;
use crate::tokens::model::{ID_TOKEN_ALG, ID_TOKEN_TTL_SECS, ID_TOKEN_TYP, IdTokenClaims};

impl Core {
    /// Signs an ID token for `client` about `subject`, saying what `openid` asked for.
    pub(crate) async fn sign_id_token(
        &self,
        realm: &Realm,
        client: &Client,
        subject: &Subject,
        (openid, nonce): (OpenId, Option<&str>),
        (family, auth_time): (&FamilyId, UnixTime),
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
            sid: Some(family.to_string()),
            email: openid.email.then(|| subject.email.clone()),
            email_verified: openid.email.then_some(true),
            name: openid.profile.then(|| subject.display_name.clone()),
        };
        self.sign_for_relying_parties(realm, ID_TOKEN_TYP, &claims)
            .await
    }

    /// Signs what relying parties verify (ID tokens, ID-JAGs) with the realm's
    /// [`ID_TOKEN_ALG`] key, made on first use.
    pub(crate) async fn sign_for_relying_parties(
        &self,
        realm: &Realm,
        typ: &str,
        claims: &impl serde::Serialize,
    ) -> Result<String> {
        let keys = self.realm_keys(realm, Some(ID_TOKEN_ALG)).await?;
        let signer = keys
            .signer(ID_TOKEN_ALG)
            .ok_or_else(|| Error::Internal(format!("no active {ID_TOKEN_ALG} key")))?;
        signer.sign(typ, claims).map_err(Error::Internal)
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
