//! `resources` commands: register MCP servers as token audiences, list them, choose the
//! default audience, create introspection credentials, list who may reach one. Each is one core
//! call, audited as `cli`.
use super::lifecycle::{self, ResourceLifecycle};
use super::support::core_error;
use super::table::{Cell, ListFormat, Table};
use clap::Subcommand;

/// `resources` subcommands.
#[derive(Debug, Subcommand)]
pub enum ResourcesCommand {
    /// Register an MCP server as a token audience.
    Create {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Id (slug), e.g. payments-mcp.
        #[arg(long)]
        id: String,
        /// Display name.
        #[arg(long)]
        name: String,
        /// Canonical URI, e.g. <https://mcp.example.com/mcp>.
        #[arg(long)]
        uri: String,
        /// Accepted scopes, space-separated.
        #[arg(long)]
        scopes: String,
        /// Access-token lifetime in seconds (default: the realm's, 300 unless changed).
        #[arg(long, default_value = "", hide_default_value = true)]
        ttl: String,
        /// Signing algorithm override: ES256, RS256 or EdDSA.
        #[arg(long, default_value = "", hide_default_value = true)]
        alg: String,
    },
    /// List resources.
    List {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        #[command(flatten)]
        format: ListFormat,
    },
    /// Choose the audience of token requests that omit `resource` (by default they are refused
    /// with invalid_target).
    SetDefault {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Resource id (slug) to use as the default audience.
        #[arg(long, required_unless_present = "none", conflicts_with = "none")]
        id: Option<String>,
        /// Require `resource` on every token request again.
        #[arg(long)]
        none: bool,
    },
    /// Create the credentials the resource's MCP server uses to introspect tokens minted for
    /// it (a client named `{id}-introspect`; the secret is printed once).
    Credentials {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Resource id (slug).
        #[arg(long)]
        id: String,
    },
    /// List the clients that may get tokens for a resource, with their scopes.
    Access {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Resource id (slug).
        #[arg(long)]
        id: String,
        /// Only clients whose client_id or name contains this.
        #[arg(long, default_value = "", hide_default_value = true)]
        search: String,
        #[command(flatten)]
        format: ListFormat,
    },
    /// Enable, disable or delete a resource.
    #[command(flatten)]
    Lifecycle(ResourceLifecycle),
}

pub(super) async fn resources(core: &authz::Core, command: ResourcesCommand) -> anyhow::Result<()> {
    let cli = authz::Principal::cli();
    match command {
        ResourcesCommand::Create {
            realm,
            id,
            name,
            uri,
            scopes,
            ttl,
            alg,
        } => {
            let input = authz::resources::ResourceInput {
                slug: id,
                display_name: name,
                uri,
                scopes,
                token_ttl_secs: ttl,
                signing_alg: alg,
                enabled: true,
            };
            let r = core
                .create_resource(&cli, &realm, &input, &authz::RequestMeta::default())
                .await
                .map_err(core_error)?;
            say!("Created resource {} with audience {}", r.slug, r.uri);
        }
        ResourcesCommand::List { realm, format } => {
            let default = core
                .default_resource(&cli, &realm)
                .await
                .map_err(core_error)?;
            let mut table = Table::new(format, ["id", "uri", "scopes", "enabled", "default"]);
            for r in core
                .list_resources(&cli, &realm)
                .await
                .map_err(core_error)?
            {
                let is_default = default.as_ref().is_some_and(|d| d.id == r.id);
                table.row([
                    r.slug.into(),
                    r.uri.to_string().into(),
                    r.scopes.to_string().into(),
                    Cell::flag(r.enabled, "enabled", "disabled"),
                    Cell::flag(is_default, "default", "-"),
                ])?;
            }
            table.finish()?;
        }
        ResourcesCommand::SetDefault { realm, id, none: _ } => {
            match core
                .set_default_resource(&cli, &realm, id.as_deref(), &authz::RequestMeta::default())
                .await
                .map_err(core_error)?
            {
                Some(r) => say!(
                    "Token requests without resource now get audience {} ({})",
                    r.uri,
                    r.slug
                ),
                None => say!("Token requests without resource are refused (invalid_target)"),
            }
        }
        ResourcesCommand::Credentials { realm, id } => {
            let (client, secret) = core
                .create_resource_server_credentials(
                    &cli,
                    &realm,
                    &id,
                    &authz::RequestMeta::default(),
                )
                .await
                .map_err(core_error)?;
            say_secret!("client_id: {}", client.client_id);
            say_secret!("client_secret: {}", secret.expose());
            eprintln!(
                "The secret is shown only this once. With these credentials (client_secret_basic) the MCP server may introspect tokens minted for {id}."
            );
        }
        ResourcesCommand::Access {
            realm,
            id,
            search,
            format,
        } => {
            let mut table = Table::new(format, ["client_id", "name", "scopes", "enabled"]);
            let mut page = authz::paging::Page::first(500);
            loop {
                let found = core
                    .resource_access(&cli, &realm, &id, &search, page.clone())
                    .await
                    .map_err(core_error)?;
                for g in &found.items {
                    table.row([
                        g.client_id.to_string().into(),
                        g.name.clone().into(),
                        g.grant.scopes.to_string().into(),
                        Cell::flag(g.enabled, "enabled", "disabled"),
                    ])?;
                }
                match found.next {
                    Some(key) => page.cursor = authz::paging::Cursor::After(key),
                    None => break,
                }
            }
            table.finish()?;
        }
        ResourcesCommand::Lifecycle(command) => {
            lifecycle::resource_lifecycle(core, command).await?
        }
    }
    Ok(())
}
