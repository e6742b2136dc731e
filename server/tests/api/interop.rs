//! Interop: the `oauth2` crate, as an MCP client would use it, gets a token over real HTTP.
use super::*;
use authz::clients::ClientForm;
use authz::resources::ResourceInput;
use oauth2::basic::{BasicClient, BasicErrorResponseType};
use oauth2::{ClientId, ClientSecret, RequestTokenError, Scope, TokenResponse, TokenUrl};

const PAY: &str = "https://pay.example.com/mcp";

#[tokio::test]
async fn the_oauth2_crate_gets_an_audience_bound_token() {
    // The oauth2 crate builds its own reqwest client, which needs a process-wide TLS provider
    // (the server configures its own fetcher explicitly).
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let t = TestServer::new().await;
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    let core = &t.state.core;
    let resource = ResourceInput {
        slug: "pay".into(),
        display_name: "Pay".into(),
        uri: PAY.into(),
        scopes: "tools:call tools:read".into(),
        enabled: true,
        ..Default::default()
    };
    core.create_resource(&cli, "default", &resource, &meta)
        .await
        .expect("resource");
    let input = ClientForm {
        name: "Bot".into(),
        auth_method: "client_secret_basic".into(),
        scope: "tools:call".into(),
        ..Default::default()
    };
    let (_, secret) = register_granted_client(core, &cli, "bot", input)
        .await
        .expect("client");
    let secret = secret.expect("confidential").expose().to_owned();

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let router = t.router.clone();
    tokio::spawn(async move { axum::serve(listener, router).await });

    let http = oauth2::reqwest::ClientBuilder::new()
        .redirect(oauth2::reqwest::redirect::Policy::none())
        .build()
        .expect("http client");
    let token_url = TokenUrl::new(format!("http://{addr}/realms/default/token")).expect("url");
    let client = BasicClient::new(ClientId::new("bot".into()))
        .set_client_secret(ClientSecret::new(secret))
        .set_token_uri(token_url.clone());
    let token = client
        .exchange_client_credentials()
        .add_scope(Scope::new("tools:call".into()))
        .add_extra_param("resource", PAY)
        .request_async(&http)
        .await
        .expect("token");
    assert_eq!(token.token_type().as_ref(), "bearer");
    assert_eq!(token.expires_in().map(|d| d.as_secs()), Some(300));
    let claims = authz::keys::decode_unverified(token.access_token().secret())
        .expect("jwt")
        .1;
    assert_eq!(claims["aud"], PAY);

    let wrong = BasicClient::new(ClientId::new("bot".into()))
        .set_client_secret(ClientSecret::new("wrong".into()))
        .set_token_uri(token_url);
    let err = wrong
        .exchange_client_credentials()
        .add_extra_param("resource", PAY)
        .request_async(&http)
        .await
        .expect_err("wrong secret");
    match err {
        RequestTokenError::ServerResponse(e) => {
            assert_eq!(*e.error(), BasicErrorResponseType::InvalidClient)
        }
        other => panic!("expected an OAuth error response, got {other:?}"),
    }
}
