//! `registration` commands: the realm's registration policy, initial access tokens, and the
//! review queue (list, approve, reject, revoke, restore). Each is one core call, audited as `cli`.
use super::support::{core_error, revocation_note, say_awaiting_review};
use super::table::{Cell, ListFormat, Table};
use clap::Subcommand;

/// `registration` subcommands.
#[derive(Debug, Subcommand)]
pub enum RegistrationCommand {
    /// Set who may register clients (review, open, initial_access_token, disabled).
    Policy {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The policy: review, open, initial_access_token or disabled (unchanged when omitted).
        #[arg(long, default_value = "", hide_default_value = true)]
        policy: String,
        /// Most self-registered clients the realm holds (unchanged when omitted).
        #[arg(long, default_value = "", hide_default_value = true)]
        max_clients: String,
        /// Clients identified by a metadata-document URL: review, any, allow_list or disabled
        /// (unchanged when omitted).
        #[arg(long, default_value = "", hide_default_value = true)]
        documents: String,
        /// Domains trusted under allow_list, space- or comma-separated.
        #[arg(long, default_value = "", hide_default_value = true)]
        domains: String,
        /// Days without a token after which a self-registered client expires; 0: never
        /// (unchanged when omitted).
        #[arg(long, default_value = "", hide_default_value = true)]
        unused_client_days: String,
        /// Days the secrets of dynamically registered clients last; 0: they do not expire
        /// (unchanged when omitted).
        #[arg(long, default_value = "", hide_default_value = true)]
        client_secret_days: String,
        /// Registrations one address may make per 15 minutes (unchanged when omitted).
        #[arg(long, default_value = "", hide_default_value = true)]
        per_source_limit: String,
        /// A trusted network (address range, e.g. 203.0.113.0/24) whose addresses share one
        /// budget; repeat for several. Replaces the realm's list; `-` clears it.
        #[arg(long = "trusted-network")]
        trusted_networks: Vec<String>,
        /// Registrations each trusted network may make per 15 minutes (unchanged when omitted).
        #[arg(long, default_value = "", hide_default_value = true)]
        trusted_network_limit: String,
        /// Hosts whose metadata documents may ask for machine access (client_credentials),
        /// space- or comma-separated; `-` clears them (unchanged when omitted).
        #[arg(long, default_value = "", hide_default_value = true)]
        machine_domains: String,
    },
    /// Issue an initial access token (for the initial_access_token policy). Shown once.
    Token {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// What it is for.
        #[arg(long)]
        label: String,
        /// How many registrations it allows.
        #[arg(long, default_value_t = 1)]
        uses: i64,
        /// Lifetime in seconds.
        #[arg(long, default_value_t = 86_400)]
        ttl: i64,
    },
    /// List clients waiting for review (or in another state: approved, rejected, revoked).
    Pending {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Review state: pending, approved, rejected, revoked or expired.
        #[arg(long, default_value = "pending")]
        state: String,
        #[command(flatten)]
        format: ListFormat,
    },
    /// Approve a pending client.
    Approve {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its client_id.
        client_id: String,
        /// Why (kept in its history).
        #[arg(long)]
        reason: String,
        /// For a machine client: grant client_credentials access, `RESOURCE[=SCOPE ...]`
        /// (every scope the resource accepts when none are given); repeatable.
        #[arg(long = "grant")]
        grants: Vec<String>,
    },
    /// Reject a pending client.
    Reject {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its client_id.
        client_id: String,
        /// Why (kept in its history).
        #[arg(long)]
        reason: String,
    },
    /// Revoke an active client: no new tokens, its refresh tokens and codes die, its access
    /// tokens introspect inactive for good.
    Revoke {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its client_id.
        client_id: String,
        /// Why (kept in its history).
        #[arg(long)]
        reason: String,
    },
    /// Let a revoked client work again: new tokens only, the old ones stay dead.
    Restore {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its client_id.
        client_id: String,
        /// Why (kept in its history).
        #[arg(long)]
        reason: String,
    },
}

pub(super) async fn registration(
    core: &authz::Core,
    command: RegistrationCommand,
) -> anyhow::Result<()> {
    let p = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        RegistrationCommand::Policy {
            realm,
            policy,
            max_clients,
            documents,
            domains,
            unused_client_days,
            client_secret_days,
            per_source_limit,
            trusted_networks,
            trusted_network_limit,
            machine_domains,
        } => {
            let r = core
                .set_registration_policy(
                    &p,
                    &realm,
                    &authz::realms::RegistrationInput {
                        policy,
                        max_dynamic_clients: max_clients,
                        metadata_document_policy: documents,
                        metadata_document_domains: domains,
                        unused_client_days,
                        client_secret_days,
                        registrations_per_source: per_source_limit,
                        trusted_networks: trusted_networks.join(" "),
                        registrations_per_trusted_network: trusted_network_limit,
                        metadata_document_machine_domains: machine_domains,
                    },
                    &meta,
                )
                .await
                .map_err(core_error)?;
            say!(
                "Realm {}: registration {}, at most {} self-registered clients, unused ones expire after {} d (0: never), their secrets last {} d (0: forever); metadata documents {}{}.",
                r.name,
                r.registration_policy.as_str(),
                r.max_dynamic_clients,
                authz::realms::as_days(r.unused_client_ttl_secs),
                authz::realms::as_days(r.client_secret_ttl_secs),
                r.metadata_document_policy.as_str(),
                if r.metadata_document_domains.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", r.metadata_document_domains.join(" "))
                }
            );
            say!(
                "Registrations per 15 minutes: {} per address{}; machine access for metadata documents from {}.",
                r.registrations_per_source,
                if r.trusted_networks.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", {} per trusted network ({})",
                        r.registrations_per_trusted_network,
                        r.trusted_networks
                            .iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join(" ")
                    )
                },
                if r.metadata_document_machine_domains.is_empty() {
                    "no host".to_owned()
                } else {
                    r.metadata_document_machine_domains.join(" ")
                }
            );
            if r.metadata_document_policy == authz::realms::MetadataDocumentPolicy::Any {
                say!(
                    "Warning: metadata documents `any` lets any web host become a client of realm {} with no one looking.",
                    r.name
                );
            }
        }
        RegistrationCommand::Token {
            realm,
            label,
            uses,
            ttl,
        } => {
            let token = core
                .create_initial_access_token(&p, &realm, &label, uses, ttl, &meta)
                .await
                .map_err(core_error)?;
            say_secret!("{}", token.expose());
        }
        RegistrationCommand::Pending {
            realm,
            state,
            format,
        } => {
            let state = authz::clients::ReviewState::parse(&state).map_err(|_| {
                anyhow::anyhow!("--state must be pending, approved, rejected, revoked or expired")
            })?;
            let mut table = Table::new(
                format,
                [
                    "client_id",
                    "name",
                    "redirect_hosts",
                    "source_ip",
                    "created_at",
                ],
            );
            let queue = core
                .review_queue(&p, &realm, state)
                .await
                .map_err(core_error)?;
            let waiting = if state == authz::clients::ReviewState::Pending {
                queue.len()
            } else {
                0
            };
            for item in queue {
                let c = &item.client;
                let ip = c.registration.source_ip.as_deref();
                table.row([
                    c.client_id.to_string().into(),
                    c.name.clone().into(),
                    Cell::list(&item.redirect_hosts, " "),
                    Cell::shown_as(ip, format!("from {}", ip.unwrap_or("-"))),
                    authz::clock::rfc3339(c.created_at).into(),
                ])?;
            }
            table.finish()?;
            say_awaiting_review(core, waiting, true);
        }
        RegistrationCommand::Approve {
            realm,
            client_id,
            reason,
            grants,
        } => {
            let access: Vec<authz::clients::AccessChoice> = grants
                .iter()
                .map(|g| match g.split_once('=') {
                    Some((resource, scopes)) => authz::clients::AccessChoice {
                        resource: resource.to_owned(),
                        scopes: Some(scopes.to_owned()),
                    },
                    None => authz::clients::AccessChoice {
                        resource: g.clone(),
                        scopes: None,
                    },
                })
                .collect();
            core.approve_client_with_access(&p, &realm, &client_id, &reason, None, &access, &meta)
                .await
                .map_err(core_error)?;
            if access.is_empty() {
                say!("Approved {client_id}.");
            } else {
                say!(
                    "Approved {client_id}; it may get tokens for {}.",
                    access
                        .iter()
                        .map(|a| a.resource.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
        RegistrationCommand::Reject {
            realm,
            client_id,
            reason,
        } => {
            core.reject_client(&p, &realm, &client_id, &reason, None, &meta)
                .await
                .map_err(core_error)?;
            say!("Rejected {client_id}.");
        }
        RegistrationCommand::Revoke {
            realm,
            client_id,
            reason,
        } => {
            core.revoke_client(&p, &realm, &client_id, &reason, None, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Revoked {client_id}: it gets no new tokens, its refresh tokens and codes stopped working, and servers that introspect see its access tokens as inactive for good. {}",
                revocation_note(core, &realm).await?
            );
        }
        RegistrationCommand::Restore {
            realm,
            client_id,
            reason,
        } => {
            core.restore_client(&p, &realm, &client_id, &reason, None, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Restored {client_id}: it may get tokens again; those it held when revoked stay dead."
            );
        }
    }
    Ok(())
}
