//! The resource's RFC 9728 Protected Resource Metadata and the routes that serve it.
use crate::Guard;
use axum::Router;
use axum::body::Body;
use axum::response::Response;
use axum::routing::get;
use http::{HeaderValue, StatusCode, header};
use serde::{Deserialize, Serialize};

/// RFC 9728 §2: what MCP clients read to find the authorization server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProtectedResourceMetadata {
    /// The resource: the canonical URL tokens name in `aud`.
    pub resource: String,
    /// The realm's issuer.
    pub authorization_servers: Vec<String>,
    /// The scopes the resource understands (omitted when none are required).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes_supported: Vec<String>,
    /// How tokens are sent: in the `Authorization` header only.
    pub bearer_methods_supported: Vec<String>,
    /// A name for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// Where the resource's documentation lives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_documentation: Option<String>,
}

impl ProtectedResourceMetadata {
    pub(crate) fn new(
        resource: &str,
        issuer: &str,
        scopes: &[String],
        name: Option<&str>,
        documentation: Option<&str>,
    ) -> Self {
        Self {
            resource: resource.to_owned(),
            authorization_servers: vec![issuer.to_owned()],
            scopes_supported: scopes.to_vec(),
            bearer_methods_supported: vec!["header".to_owned()],
            resource_name: name.map(str::to_owned),
            resource_documentation: documentation.map(str::to_owned),
        }
    }
}

fn with_cors(mut res: Response) -> Response {
    // Browser-based MCP clients read the metadata cross-origin (and send MCP-Protocol-Version,
    // so they ask first).
    let h = res.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, OPTIONS"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("mcp-protocol-version, content-type"),
    );
    res
}

impl Guard {
    /// The resource's metadata document.
    pub fn metadata(&self) -> &ProtectedResourceMetadata {
        &self.inner.metadata
    }

    /// Where the metadata is served: the path-inserted URL (RFC 9728 §3.1), then the root one
    /// (one URL for a bare-origin resource).
    pub fn metadata_urls(&self) -> &[String] {
        &self.inner.metadata_urls
    }

    /// Routes serving the metadata at [`Guard::metadata_urls`], with CORS for browser-based
    /// clients. Merge them outside the guard's layer: the metadata is public.
    pub fn metadata_router<S: Clone + Send + Sync + 'static>(&self) -> Router<S> {
        let body = bytes_of(&self.inner.metadata);
        let mut router = Router::new();
        for url in &self.inner.metadata_urls {
            let (_, path) = split_origin(url);
            let body = body.clone();
            router = router.route(
                path,
                get(move || {
                    let body = body.clone();
                    async move {
                        let mut res = Response::new(Body::from(body));
                        let h = res.headers_mut();
                        h.insert(
                            header::CONTENT_TYPE,
                            HeaderValue::from_static("application/json"),
                        );
                        h.insert(
                            header::CACHE_CONTROL,
                            HeaderValue::from_static("public, max-age=3600"),
                        );
                        with_cors(res)
                    }
                })
                .options(|| async {
                    let mut res = Response::new(Body::empty());
                    *res.status_mut() = StatusCode::NO_CONTENT;
                    with_cors(res)
                }),
            );
        }
        router
    }
}

fn bytes_of(m: &ProtectedResourceMetadata) -> axum::body::Bytes {
    // Serialising a struct of strings cannot fail.
    serde_json::to_vec_pretty(m)
        .map(Into::into)
        .unwrap_or_default()
}

/// `(origin, path)` of an absolute URL.
pub(crate) fn split_origin(url: &str) -> (&str, &str) {
    match url
        .find("://")
        .and_then(|i| url[i + 3..].find('/').map(|j| i + 3 + j))
    {
        Some(at) => (&url[..at], &url[at..]),
        None => (url, "/"),
    }
}
