//! `clients` commands: register clients, rotate their secrets, grant and revoke their access to
//! resources and list it. Each is one core call, audited as `cli`.
use super::lifecycle::{self, ClientLifecycle};
use super::support::{core_error, revocation_note};
use super::table::{ListFormat, Table};
use clap::Subcommand;

/// `clients` subcommands.
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant)] // parsed once per process
pub enum ClientsCommand {
    /// Register a client; a confidential client's secret is printed once.
    Create {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id` (generated when omitted).
        #[arg(long, default_value = "", hide_default_value = true)]
        client_id: String,
        /// Display name.
        #[arg(long)]
        name: String,
        /// Allowed scopes, space-separated.
        #[arg(long)]
        scope: String,
        /// client_secret_basic, client_secret_post, private_key_jwt or none.
        #[arg(long, default_value = "client_secret_basic")]
        auth_method: String,
        /// JWK Set (JSON) with the public keys of a private_key_jwt client.
        #[arg(long, default_value = "", hide_default_value = true)]
        jwks: String,
        /// Or the HTTPS URL where a private_key_jwt client publishes its JWK Set.
        #[arg(
            long,
            default_value = "",
            hide_default_value = true,
            conflicts_with = "jwks"
        )]
        jwks_uri: String,
        /// Contacts (emails, comma-separated).
        #[arg(long, default_value = "", hide_default_value = true)]
        contacts: String,
        /// Redirect URIs (space-separated), matched exactly.
        #[arg(long, default_value = "", hide_default_value = true)]
        redirect_uris: String,
        /// RFC 7591 `client_uri`.
        #[arg(long, default_value = "", hide_default_value = true)]
        client_uri: String,
        /// RFC 7591 `logo_uri`.
        #[arg(long, default_value = "", hide_default_value = true)]
        logo_uri: String,
        /// RFC 7591 `software_id`.
        #[arg(long, default_value = "", hide_default_value = true)]
        software_id: String,
        /// RFC 7591 `software_version`.
        #[arg(long, default_value = "", hide_default_value = true)]
        software_version: String,
        /// Let the client use token exchange (RFC 8693): an MCP server or gateway trading the
        /// token it received for a five-minute token at another server. Confidential only.
        #[arg(long)]
        token_exchange: bool,
        /// Let the client use the device authorization grant (RFC 8628): a command-line tool
        /// or headless machine shows a code that a person approves in a browser.
        #[arg(long)]
        device_code: bool,
    },
    /// Issue a new secret; old ones keep working for the overlap.
    RotateSecret {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id`.
        #[arg(long)]
        client_id: String,
        /// Seconds the previous secrets keep working.
        #[arg(long, default_value_t = authz::clients::DEFAULT_SECRET_OVERLAP_SECS)]
        overlap_secs: i64,
    },
    /// Let a client get tokens for a resource (or change the scopes it may get there).
    Grant {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id`.
        #[arg(long)]
        client_id: String,
        /// Resource id (slug).
        #[arg(long)]
        resource: String,
        /// Scopes, space-separated, each accepted by the resource (default: all it accepts).
        #[arg(long)]
        scopes: Option<String>,
    },
    /// Stop a client getting tokens for a resource; its live tokens for it introspect inactive.
    Revoke {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id`.
        #[arg(long)]
        client_id: String,
        /// Resource id (slug).
        #[arg(long)]
        resource: String,
    },
    /// Turn token exchange (RFC 8693) on or off for a confidential client — a resource
    /// server's introspection credentials included, so its MCP server may call onward.
    TokenExchange {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id`.
        #[arg(long)]
        client_id: String,
        /// `on` or `off`.
        #[arg(value_parser = ["on", "off"])]
        state: String,
    },
    /// List the resources a client may get tokens for, with its scopes there.
    Access {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id`.
        #[arg(long)]
        client_id: String,
        #[command(flatten)]
        format: ListFormat,
    },
    /// List, enable, disable or delete clients.
    #[command(flatten)]
    Lifecycle(ClientLifecycle),
}

pub(super) async fn clients(core: &authz::Core, command: ClientsCommand) -> anyhow::Result<()> {
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        ClientsCommand::Create {
            realm,
            client_id,
            name,
            scope,
            auth_method,
            jwks,
            jwks_uri,
            contacts,
            redirect_uris,
            client_uri,
            logo_uri,
            software_id,
            software_version,
            token_exchange,
            device_code,
        } => {
            let metadata = authz::clients::ClientForm {
                name,
                auth_method,
                scope,
                contacts,
                jwks,
                jwks_uri,
                client_uri,
                logo_uri,
                software_id,
                software_version,
                redirect_uris,
                token_exchange: token_exchange.then_some(true),
                device_code: device_code.then_some(true),
            }
            .into_metadata()
            .map_err(core_error)?;
            let (client, secret) = core
                .create_client(&cli, &realm, &client_id, &metadata, &meta)
                .await
                .map_err(core_error)?;
            say_secret!("client_id: {}", client.client_id);
            if let Some(secret) = secret {
                say_secret!("client_secret: {}", secret.expose());
                eprintln!("The secret is shown only this once; store it now.");
            }
        }
        ClientsCommand::RotateSecret {
            realm,
            client_id,
            overlap_secs,
        } => {
            let secret = core
                .rotate_client_secret(&cli, &realm, &client_id, overlap_secs, &meta)
                .await
                .map_err(core_error)?;
            say_secret!("client_secret: {}", secret.expose());
            eprintln!("Previous secrets keep working for {overlap_secs} seconds.");
        }
        ClientsCommand::Grant {
            realm,
            client_id,
            resource,
            scopes,
        } => {
            let g = core
                .grant_access(
                    &cli,
                    &realm,
                    &client_id,
                    &resource,
                    scopes.as_deref(),
                    &meta,
                )
                .await
                .map_err(core_error)?;
            say!(
                "Client {client_id} may get tokens for {} ({}) with scopes: {}",
                g.resource.slug,
                g.resource.uri,
                g.grant.scopes
            );
        }
        ClientsCommand::Revoke {
            realm,
            client_id,
            resource,
        } => {
            core.revoke_access(&cli, &realm, &client_id, &resource, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Client {client_id} may no longer get tokens for {resource}; servers that introspect see its live tokens for it as inactive. {}",
                revocation_note(core, &realm).await?
            );
        }
        ClientsCommand::TokenExchange {
            realm,
            client_id,
            state,
        } => {
            let on = state == "on";
            core.set_client_token_exchange(&cli, &realm, &client_id, on, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Client {client_id} {} exchange tokens (RFC 8693).",
                if on { "may" } else { "may no longer" }
            );
        }
        ClientsCommand::Access {
            realm,
            client_id,
            format,
        } => {
            let mut table = Table::new(format, ["resource", "uri", "scopes"]);
            for a in core
                .client_access(&cli, &realm, &client_id)
                .await
                .map_err(core_error)?
            {
                if let Some(grant) = &a.grant {
                    table.row([
                        a.resource.slug.clone().into(),
                        a.resource.uri.to_string().into(),
                        grant
                            .scopes
                            .intersection(&a.resource.scopes)
                            .to_string()
                            .into(),
                    ])?;
                }
            }
            table.finish()?;
        }
        ClientsCommand::Lifecycle(command) => lifecycle::client_lifecycle(core, command).await?,
    }
    Ok(())
}
