//! Federation types: the identity providers a realm trusts to assert who a person is — today the
//! issuers of Identity Assertion JWT Authorization Grants (ID-JAG, enterprise-managed
//! authorization) — and the links from their subjects to the realm's people.
use crate::clients::ClientId;
use crate::clock::UnixTime;
use crate::ids::{PersonId, RealmId};
use crate::keys::SigningAlg;

pub use crate::ids::TrustedIssuerId;

/// Most trusted issuers one realm holds.
pub const MAX_TRUSTED_ISSUERS: usize = 20;
/// Most clients one trusted issuer lists.
pub const MAX_ISSUER_CLIENTS: usize = 50;
/// Longest inline JWK Set accepted, in bytes.
pub const MAX_INLINE_JWKS_LEN: usize = 16 * 1024;

/// Where a trusted issuer's signing keys come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IssuerKeys {
    /// Its published JWK Set, fetched (over HTTPS) and cached.
    Uri(String),
    /// A JWK Set an administrator pasted (public keys only).
    Inline(serde_json::Value),
}

/// An identity provider whose ID-JAGs the realm's token endpoint accepts
/// (`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedIssuer {
    /// Row id.
    pub id: TrustedIssuerId,
    /// Realm.
    pub realm_id: RealmId,
    /// Its `iss`, compared exactly.
    pub issuer: String,
    /// Shown in the console and audit log.
    pub display_name: String,
    /// Its keys.
    pub keys: IssuerKeys,
    /// The signature algorithms accepted from it (never `none`, never HMAC).
    pub algorithms: Vec<SigningAlg>,
    /// The clients (by `client_id`) that may present its assertions; no one else may.
    pub clients: Vec<ClientId>,
    /// Whether a subject nobody is linked to becomes a new person of the realm (just in time),
    /// named by the assertion's `email`.
    pub create_people: bool,
    /// Whether a subject nobody is linked to is linked to the existing person with the
    /// assertion's `email` (the administrator vouches that the issuer owns those addresses).
    pub link_by_email: bool,
    /// A disabled issuer's assertions are refused.
    pub enabled: bool,
    /// Creation time.
    pub created_at: UnixTime,
    /// Last change.
    pub updated_at: UnixTime,
}

impl TrustedIssuer {
    /// Whether `client` may present this issuer's assertions.
    pub fn admits_client(&self, client: &ClientId) -> bool {
        self.clients.contains(client)
    }

    /// Applies checked settings (not the enabled flag, which has its own action).
    pub fn apply(&mut self, f: TrustedIssuerFields) {
        self.issuer = f.issuer;
        self.display_name = f.display_name;
        self.keys = f.keys;
        self.algorithms = f.algorithms;
        self.clients = f.clients;
        self.create_people = f.create_people;
        self.link_by_email = f.link_by_email;
    }
}

/// A trusted issuer as typed into the console or the CLI.
#[derive(Debug, Clone, Default)]
pub struct TrustedIssuerInput {
    /// `iss` of its assertions.
    pub issuer: String,
    /// Display name (defaults to the issuer's host).
    pub display_name: String,
    /// JWKS URL (this or `jwks`).
    pub jwks_uri: String,
    /// JWK Set as JSON text (this or `jwks_uri`).
    pub jwks: String,
    /// Accepted algorithms, separated by spaces or commas (empty: ES256 and RS256).
    pub algorithms: String,
    /// The `client_id`s that may present its assertions, separated by spaces, commas or lines.
    pub clients: String,
    /// Create people just in time.
    pub create_people: bool,
    /// Link existing people by email.
    pub link_by_email: bool,
}

/// Checked settings of a trusted issuer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedIssuerFields {
    /// `iss`.
    pub issuer: String,
    /// Display name.
    pub display_name: String,
    /// Keys.
    pub keys: IssuerKeys,
    /// Algorithms.
    pub algorithms: Vec<SigningAlg>,
    /// Clients.
    pub clients: Vec<ClientId>,
    /// Create people just in time.
    pub create_people: bool,
    /// Link existing people by email.
    pub link_by_email: bool,
}

/// Parses an issuer identifier, kept exactly as typed apart from surrounding spaces.
///
/// It must be an absolute `https` URL (plain `http` only on loopback when
/// `allow_http_loopback`) without query, fragment or credentials; assertions are compared to it
/// byte for byte.
///
/// # Errors
/// A message fit for the form.
pub fn parse_issuer(s: &str, allow_http_loopback: bool) -> Result<String, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err(
            "The issuer is required: the iss of the identity provider's assertions.".into(),
        );
    }
    if s.len() > crate::fetch::MAX_URL_LEN {
        return Err(format!(
            "The issuer must be at most {} characters.",
            crate::fetch::MAX_URL_LEN
        ));
    }
    let url = url::Url::parse(s).map_err(|_| "The issuer must be an absolute URL.".to_owned())?;
    let loopback = url.host().is_some_and(|h| match h {
        url::Host::Domain(d) => d == "localhost",
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
    });
    let scheme_ok =
        url.scheme() == "https" || (url.scheme() == "http" && loopback && allow_http_loopback);
    if !scheme_ok || url.host().is_none() {
        return Err("The issuer must be an https URL.".into());
    }
    if url.query().is_some() || url.fragment().is_some() || s.contains(['?', '#']) {
        return Err("The issuer must not have a query or fragment (RFC 8414 §2).".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("The issuer must not contain credentials.".into());
    }
    Ok(s.to_owned())
}

/// Parses a list of algorithms; empty means ES256 and RS256 (what identity providers sign
/// ID tokens and ID-JAGs with).
///
/// # Errors
/// A message naming the unsupported one.
pub fn parse_algorithms(s: &str) -> Result<Vec<SigningAlg>, String> {
    let mut out = Vec::new();
    for a in s
        .split([' ', ',', '\n', '\r', '\t'])
        .filter(|a| !a.is_empty())
    {
        let alg = SigningAlg::parse(a)?;
        if !out.contains(&alg) {
            out.push(alg);
        }
    }
    if out.is_empty() {
        out = vec![SigningAlg::ES256, SigningAlg::RS256];
    }
    out.sort_by_key(|a| SigningAlg::ALL.iter().position(|b| b == a));
    Ok(out)
}

/// Parses the list of clients that may present an issuer's assertions: at least one, at most
/// [`MAX_ISSUER_CLIENTS`], without repeats.
///
/// # Errors
/// A message fit for the form.
pub fn parse_client_list(s: &str) -> Result<Vec<ClientId>, String> {
    let mut out: Vec<ClientId> = Vec::new();
    for c in s
        .split([' ', ',', '\n', '\r', '\t'])
        .filter(|c| !c.is_empty())
    {
        let id = ClientId::parse(c).map_err(|m| format!("{c:.60}: {m}"))?;
        if !out.contains(&id) {
            out.push(id);
        }
    }
    if out.is_empty() {
        return Err("Name at least one client: only the clients listed may present this identity provider's assertions.".into());
    }
    if out.len() > MAX_ISSUER_CLIENTS {
        return Err(format!("At most {MAX_ISSUER_CLIENTS} clients."));
    }
    Ok(out)
}

/// The host of an issuer URL, for a default display name.
fn host_of(issuer: &str) -> Option<String> {
    url::Url::parse(issuer)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
}

impl TrustedIssuerInput {
    /// Checks every field; every problem is reported at once. Plain `http` on loopback is
    /// accepted for the issuer with either development setting, for the JWKS URL (fetched) only
    /// with `allow_loopback_fetch`.
    ///
    /// # Errors
    /// `InvalidField`, or `Findings` for several.
    pub fn validate(
        &self,
        (allow_http_loopback, allow_loopback_fetch): (bool, bool),
    ) -> crate::error::Result<TrustedIssuerFields> {
        let mut checks = crate::error::FieldChecks::default();
        let issuer = checks.take(
            "issuer",
            parse_issuer(&self.issuer, allow_http_loopback || allow_loopback_fetch),
        );
        let display_name = match self.display_name.trim() {
            "" => issuer.as_deref().and_then(host_of),
            n => checks.take("display_name", crate::realms::parse_display_name(n, "Name")),
        };
        let keys = match (self.jwks_uri.trim(), self.jwks.trim()) {
            ("", "") => {
                checks.note(
                    "jwks_uri",
                    "Give the identity provider's JWKS URL (or paste its JWK Set).",
                );
                None
            }
            (uri, "") => checks
                .take(
                    "jwks_uri",
                    crate::fetch::parse_fetch_url(uri, allow_loopback_fetch),
                )
                .map(|u| IssuerKeys::Uri(u.to_string())),
            ("", text) => checks.take("jwks", parse_inline_jwks(text)),
            _ => {
                checks.note("jwks", "Give either a JWKS URL or a JWK Set, not both.");
                None
            }
        };
        let algorithms = checks.take("algorithms", parse_algorithms(&self.algorithms));
        let clients = checks.take("clients", parse_client_list(&self.clients));
        // Pasted keys must include one that signs with an accepted algorithm.
        if let (Some(IssuerKeys::Inline(doc)), Some(algs)) = (&keys, &algorithms) {
            let usable = doc["keys"].as_array().is_some_and(|ks| {
                ks.iter()
                    .filter_map(|k| crate::keys::Verifier::from_jwk(k).ok())
                    .any(|v| algs.contains(&v.alg()))
            });
            if !usable {
                checks.note(
                    "algorithms",
                    "None of the pasted keys signs with these algorithms (an EC P-256 key is ES256, RSA is RS256, Ed25519 is EdDSA).",
                );
            }
        }
        checks.finish()?;
        let (Some(issuer), Some(display_name), Some(keys), Some(algorithms), Some(clients)) =
            (issuer, display_name, keys, algorithms, clients)
        else {
            return Err(crate::error::Error::field(
                "issuer",
                "The issuer must have a host.",
            ));
        };
        Ok(TrustedIssuerFields {
            issuer,
            display_name,
            keys,
            algorithms,
            clients,
            create_people: self.create_people,
            link_by_email: self.link_by_email,
        })
    }
}

/// Parses a pasted JWK Set: JSON, public keys only, each one usable.
///
/// # Errors
/// A message fit for the form.
pub fn parse_inline_jwks(text: &str) -> Result<IssuerKeys, String> {
    if text.len() > MAX_INLINE_JWKS_LEN {
        return Err(format!(
            "The JWK Set must be at most {} KiB.",
            MAX_INLINE_JWKS_LEN / 1024
        ));
    }
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("The JWK Set is not JSON: {e}"))?;
    if doc.get("kty").is_some() {
        return Err("This is one key: paste a JWK Set, {\"keys\": [ … ]}.".into());
    }
    crate::clients::check_client_jwks(&doc)?;
    Ok(IssuerKeys::Inline(doc))
}

/// Which person of a realm an upstream identity is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonIdentity {
    /// Realm.
    pub realm_id: RealmId,
    /// The identity provider's issuer.
    pub issuer: String,
    /// Its `sub` for the person.
    pub subject: String,
    /// The person.
    pub person_id: PersonId,
    /// When the link was made.
    pub created_at: UnixTime,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issuers_are_https_urls_kept_as_typed() {
        assert_eq!(
            parse_issuer(" https://idp.example.com/oauth2/default ", false).as_deref(),
            Ok("https://idp.example.com/oauth2/default")
        );
        assert_eq!(
            parse_issuer("https://idp.example.com/", false).as_deref(),
            Ok("https://idp.example.com/"),
            "a trailing slash is part of the issuer"
        );
        assert!(parse_issuer("http://idp.example.com", true).is_err());
        assert!(parse_issuer("http://127.0.0.1:4000", true).is_ok());
        assert!(parse_issuer("http://127.0.0.1:4000", false).is_err());
        assert!(parse_issuer("https://idp.example.com?x=1", false).is_err());
        assert!(parse_issuer("https://idp.example.com#x", false).is_err());
        assert!(parse_issuer("https://u:p@idp.example.com", false).is_err());
        assert!(parse_issuer("idp.example.com", false).is_err());
        assert!(parse_issuer("", false).is_err());
    }

    #[test]
    fn algorithms_default_to_what_idps_sign_with_and_never_include_none() {
        assert_eq!(
            parse_algorithms(""),
            Ok(vec![SigningAlg::ES256, SigningAlg::RS256])
        );
        assert_eq!(
            parse_algorithms("EdDSA, RS256 RS256"),
            Ok(vec![SigningAlg::RS256, SigningAlg::EdDSA])
        );
        assert!(parse_algorithms("none").is_err());
        assert!(parse_algorithms("HS256").is_err());
    }

    #[test]
    fn client_lists_are_required_bounded_and_deduplicated() {
        let list = parse_client_list("a, b\nb").expect("parses");
        assert_eq!(list.len(), 2);
        assert!(parse_client_list(" ,, ").is_err());
        let many: Vec<String> = (0..=MAX_ISSUER_CLIENTS).map(|i| format!("c{i}")).collect();
        assert!(parse_client_list(&many.join(" ")).is_err());
    }

    #[test]
    fn keys_come_from_one_place() {
        let input = |uri: &str, jwks: &str| TrustedIssuerInput {
            issuer: "https://idp.example.com".into(),
            jwks_uri: uri.into(),
            jwks: jwks.into(),
            clients: "c".into(),
            ..TrustedIssuerInput::default()
        };
        let ok = input("https://idp.example.com/keys", "")
            .validate((false, false))
            .expect("valid");
        assert_eq!(ok.display_name, "idp.example.com");
        assert_eq!(
            ok.keys,
            IssuerKeys::Uri("https://idp.example.com/keys".into())
        );
        assert!(input("", "").validate((false, false)).is_err());
        assert!(
            input("https://idp.example.com/keys", r#"{"keys":[]}"#)
                .validate((false, false))
                .is_err()
        );
        assert!(
            input("", r#"{"keys":[]}"#)
                .validate((false, false))
                .is_err(),
            "an empty set"
        );
        let private = r#"{"keys":[{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","d":"jpsQnnGQmL-YBIffH1136cLNvZ2h2w6ns_zdZ9yNGRg"}]}"#;
        assert!(input("", private).validate((false, false)).is_err());
        let ec = r#"{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#;
        let one = input("", ec)
            .validate((false, false))
            .expect_err("one key, not a set");
        assert!(one.to_string().contains("JWK Set"), "{one}");
        let set = format!(r#"{{"keys":[{ec}]}}"#);
        assert!(input("", &set).validate((false, false)).is_ok());
        let rsa_only = TrustedIssuerInput {
            algorithms: "RS256".into(),
            ..input("", &set)
        };
        match rsa_only.validate((false, false)) {
            Err(crate::error::Error::InvalidField { field, .. }) => assert_eq!(field, "algorithms"),
            other => panic!("an EC key is not RS256: {other:?}"),
        }
    }
}
