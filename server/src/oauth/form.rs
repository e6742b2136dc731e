//! Decoding of `application/x-www-form-urlencoded` protocol requests and client credentials.
//!
//! Linear in the body's size: at most [`MAX_PARAMETERS`] parameters, duplicates found with a
//! set. `client_id`s are parsed (bounded) before anything looks them up or logs them.
use authz::clients::ClientId;
use authz::error::OAuthErrorCode;
use authz::tokens::ClientCredentials;
use std::collections::HashSet;

/// Most parameters one protocol request may carry.
pub const MAX_PARAMETERS: usize = 64;
use axum::http::{HeaderMap, header};
use base64::Engine as _;

fn bad(msg: &'static str) -> authz::Error {
    authz::Error::oauth(OAuthErrorCode::InvalidRequest, msg)
}

/// A decoded form: every parameter, in order.
pub struct Form(Vec<(String, String)>);

impl Form {
    /// The single value of a parameter, if present.
    pub fn one(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of a parameter.
    pub fn all(&self, name: &str) -> Vec<String> {
        self.0
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// A parameter that must be present and non-empty.
    ///
    /// # Errors
    /// `invalid_request` naming the parameter.
    pub fn required(&self, name: &'static str) -> Result<&str, authz::Error> {
        self.one(name).filter(|v| !v.is_empty()).ok_or_else(|| {
            authz::Error::oauth(
                OAuthErrorCode::InvalidRequest,
                format!("The {name} parameter is required."),
            )
        })
    }
}

/// Decodes the body; parameters other than `repeatable` must not repeat (RFC 6749 §3.2).
///
/// # Errors
/// `invalid_request` for another content type or a repeated parameter.
pub fn parse_form(
    headers: &HeaderMap,
    body: &str,
    repeatable: &[&str],
) -> Result<Form, authz::Error> {
    let is_form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';').next().is_some_and(|m| {
                m.trim()
                    .eq_ignore_ascii_case("application/x-www-form-urlencoded")
            })
        });
    if !is_form {
        return Err(bad("Send parameters as application/x-www-form-urlencoded."));
    }
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (k, v) in url::form_urlencoded::parse(body.as_bytes()) {
        if pairs.len() == MAX_PARAMETERS {
            return Err(bad("Too many parameters."));
        }
        if !repeatable.contains(&k.as_ref()) && !seen.insert(k.to_string()) {
            let named = k.len() <= 40 && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            return Err(authz::Error::oauth(
                OAuthErrorCode::InvalidRequest,
                if named {
                    format!("The {k} parameter must not repeat.")
                } else {
                    "A parameter must not repeat.".to_owned()
                },
            ));
        }
        pairs.push((k.into_owned(), v.into_owned()));
    }
    Ok(Form(pairs))
}

/// Reads client credentials from `Authorization: Basic` or the body; using both is refused.
///
/// # Errors
/// `invalid_request` for several methods at once, `invalid_client` for a malformed header.
pub fn client_credentials(
    headers: &HeaderMap,
    form: &Form,
) -> Result<Option<ClientCredentials>, authz::Error> {
    let basic = match headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        Some(v) if v.len() > 6 && v[..6].eq_ignore_ascii_case("basic ") => {
            Some(parse_basic(&v[6..])?)
        }
        Some(_) => {
            return Err(authz::Error::oauth(
                OAuthErrorCode::InvalidClient,
                "Unsupported Authorization scheme; use Basic.",
            ));
        }
        None => None,
    };
    let body_id = form.one("client_id").map(client_id).transpose()?;
    let body_secret = form.one("client_secret");
    match (
        form.one("client_assertion_type"),
        form.one("client_assertion"),
    ) {
        (None, None) => {}
        (Some(authz::tokens::JWT_BEARER_ASSERTION), Some(assertion)) => {
            if basic.is_some() || body_secret.is_some() {
                return Err(bad("Use exactly one client authentication method."));
            }
            // The client is named by `client_id` or, failing that, by the assertion's `iss`.
            let client_id = match body_id {
                Some(id) => id,
                None => authz::keys::decode_unverified(assertion)
                    .ok()
                    .and_then(|(_, c)| c["iss"].as_str().and_then(|s| ClientId::parse(s).ok()))
                    .ok_or_else(|| {
                        authz::Error::oauth(
                            OAuthErrorCode::InvalidClient,
                            "Malformed client assertion.",
                        )
                    })?,
            };
            return Ok(Some(ClientCredentials::Assertion {
                client_id,
                assertion: assertion.to_owned(),
            }));
        }
        (Some(authz::tokens::JWT_BEARER_ASSERTION), None) => {
            return Err(bad("client_assertion is required."));
        }
        (Some(_), _) => return Err(bad("Unsupported client_assertion_type.")),
        (None, Some(_)) => return Err(bad("client_assertion_type is required.")),
    }
    match (basic, body_id, body_secret) {
        (Some(_), _, Some(_)) => Err(bad("Use exactly one client authentication method.")),
        (Some((id, _)), Some(other), None) if other != id => {
            Err(bad("client_id does not match the Authorization header."))
        }
        (Some((client_id, secret)), _, None) => {
            Ok(Some(ClientCredentials::Basic { client_id, secret }))
        }
        (None, Some(client_id), Some(secret)) => Ok(Some(ClientCredentials::Post {
            client_id,
            secret: secret.to_owned(),
        })),
        (None, Some(client_id), None) => Ok(Some(ClientCredentials::None { client_id })),
        (None, None, Some(_)) => Err(bad("client_secret without client_id.")),
        (None, None, None) => Ok(None),
    }
}

/// A presented `client_id`, bounded before anything else sees it.
fn client_id(s: &str) -> Result<ClientId, authz::Error> {
    ClientId::parse(s).map_err(|_| bad("The client_id is malformed."))
}

/// RFC 6749 §2.3.1: `base64(urlencode(id) ":" urlencode(secret))`.
fn parse_basic(b64: &str) -> Result<(ClientId, String), authz::Error> {
    let malformed = || {
        authz::Error::oauth(
            OAuthErrorCode::InvalidClient,
            "Malformed Basic credentials.",
        )
    };
    let raw = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .map_err(|_| malformed())?;
    let text = String::from_utf8(raw).map_err(|_| malformed())?;
    let (id, secret) = text.split_once(':').ok_or_else(malformed)?;
    let decode = |s: &str| {
        url::form_urlencoded::parse(format!("x={s}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
    };
    match (decode(id), decode(secret)) {
        (Some(id), Some(secret)) if !id.is_empty() => Ok((client_id(&id)?, secret)),
        _ => Err(malformed()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(auth: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::CONTENT_TYPE,
            "application/x-www-form-urlencoded".parse().expect("valid"),
        );
        if let Some(a) = auth {
            h.insert(header::AUTHORIZATION, a.parse().expect("valid"));
        }
        h
    }

    #[test]
    fn basic_credentials_are_url_decoded() {
        let b64 = base64::engine::general_purpose::STANDARD.encode("my%3Aclient:s%2Bcret");
        let form = parse_form(&headers(None), "", &[]).expect("form");
        let creds = client_credentials(&headers(Some(&format!("Basic {b64}"))), &form).expect("ok");
        assert_eq!(
            creds,
            Some(ClientCredentials::Basic {
                client_id: ClientId::parse("my:client").expect("valid"),
                secret: "s+cret".into()
            })
        );
    }

    #[test]
    fn repeated_parameters_and_mixed_methods_are_refused() {
        assert!(parse_form(&headers(None), "scope=a&scope=b", &[]).is_err());
        assert_eq!(
            parse_form(&headers(None), "resource=a&resource=b", &["resource"])
                .expect("ok")
                .all("resource")
                .len(),
            2
        );
        let mut json = HeaderMap::new();
        json.insert(
            header::CONTENT_TYPE,
            "application/json".parse().expect("valid"),
        );
        assert!(parse_form(&json, "", &[]).is_err());
        let b64 = base64::engine::general_purpose::STANDARD.encode("a:b");
        let form = parse_form(&headers(None), "client_id=a&client_secret=b", &[]).expect("form");
        assert!(client_credentials(&headers(Some(&format!("Basic {b64}"))), &form).is_err());
        assert!(client_credentials(&headers(Some("Bearer x")), &form).is_err());
        assert!(
            client_credentials(
                &headers(Some("Basic !!!")),
                &parse_form(&headers(None), "", &[]).expect("form")
            )
            .is_err()
        );
    }

    fn code(r: Result<impl Sized, authz::Error>) -> Option<OAuthErrorCode> {
        match r {
            Err(authz::Error::OAuth(e)) => Some(e.code),
            _ => None,
        }
    }

    #[test]
    fn forms_are_bounded() {
        let many: Vec<String> = (0..=MAX_PARAMETERS).map(|i| format!("k{i}=v")).collect();
        assert_eq!(
            code(parse_form(&headers(None), &many.join("&"), &[])),
            Some(OAuthErrorCode::InvalidRequest)
        );
        assert!(parse_form(&headers(None), &many[..MAX_PARAMETERS].join("&"), &[]).is_ok());
        // A 64 KiB body of distinct keys is refused after the 65th, without quadratic work.
        let body: String = (0..8_200).map(|i| format!("{i:07}&")).collect();
        assert!(body.len() >= 64 * 1024);
        assert_eq!(
            code(parse_form(&headers(None), &body, &[])),
            Some(OAuthErrorCode::InvalidRequest)
        );
        // A 64 KiB client_id is refused as malformed, never looked up.
        let long = format!("client_id={}", "a".repeat(64 * 1024));
        let form = parse_form(&headers(None), &long, &[]).expect("one parameter");
        assert_eq!(
            code(client_credentials(&headers(None), &form)),
            Some(OAuthErrorCode::InvalidRequest)
        );
        let b64 =
            base64::engine::general_purpose::STANDARD.encode(format!("{}:s", "a".repeat(300)));
        let form = parse_form(&headers(None), "", &[]).expect("form");
        assert_eq!(
            code(client_credentials(
                &headers(Some(&format!("Basic {b64}"))),
                &form
            )),
            Some(OAuthErrorCode::InvalidRequest)
        );
    }
}
