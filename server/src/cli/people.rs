//! `people` commands: add a realm's people, list them, set passwords, disable and enable them.
//! Each is one core call, audited as `cli`.
use super::support::{core_error, revocation_note};
use super::table::{Cell, ListFormat, Table};
use clap::Subcommand;

/// `people` subcommands.
#[derive(Debug, Subcommand)]
pub enum PeopleCommand {
    /// Add a person. With --password, the password is prompted for (or read from stdin).
    Add {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Sign-in email.
        #[arg(long)]
        email: String,
        /// Display name (default: the email).
        #[arg(long, default_value = "", hide_default_value = true)]
        name: String,
        /// Roles, space-separated.
        #[arg(long, default_value = "", hide_default_value = true)]
        roles: String,
        /// Set a first password.
        #[arg(long)]
        password: bool,
    },
    /// List a realm's people.
    List {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Only those whose email or name contains this.
        #[arg(long)]
        search: Option<String>,
        #[command(flatten)]
        format: ListFormat,
    },
    /// Set a person's password (prompted for, or read from stdin).
    SetPassword {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The person's id (psn_…).
        id: String,
    },
    /// Disable a person: their sign-ins end and their apps' tokens stop working.
    Disable {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The person's id (psn_…).
        id: String,
    },
    /// Enable a person again.
    Enable {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The person's id (psn_…).
        id: String,
    },
    /// Link an identity provider's identity to a person: its ID-JAGs for that subject then act
    /// as them.
    Link {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The person's id (psn_…).
        id: String,
        /// The provider's issuer (a trusted issuer of the realm).
        #[arg(long)]
        issuer: String,
        /// The provider's subject (sub) for the person.
        #[arg(long)]
        subject: String,
    },
    /// Unlink an identity provider's identity from a person (the tokens it bought are revoked).
    Unlink {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The person's id (psn_…).
        id: String,
        /// The provider's issuer.
        #[arg(long)]
        issuer: String,
        /// The provider's subject (sub) for the person.
        #[arg(long)]
        subject: String,
    },
}

pub(super) async fn people(
    core: &authz::Core,
    command: PeopleCommand,
    password: Option<String>,
) -> anyhow::Result<()> {
    let p = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        PeopleCommand::Add {
            realm,
            email,
            name,
            roles,
            password: _,
        } => {
            let input = authz::people::PersonInput {
                email,
                display_name: name,
                roles,
            };
            let person = core
                .create_person(&p, &realm, &input, password.as_deref(), &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Added {} ({}) to realm {realm}{}.",
                person.email,
                person.id,
                if person.password_hash.is_some() {
                    ""
                } else {
                    "; set a password with `people set-password` before they can sign in"
                }
            );
        }
        PeopleCommand::List {
            realm,
            search,
            format,
        } => {
            let page = core
                .list_people(
                    &p,
                    &realm,
                    search.as_deref(),
                    authz::paging::Page::first(500),
                )
                .await
                .map_err(core_error)?;
            let mut table = Table::new(format, ["id", "email", "display_name", "roles", "enabled"]);
            for person in page.items {
                table.row([
                    person.id.to_string().into(),
                    person.email.to_string().into(),
                    person.display_name.into(),
                    person.roles.to_string().into(),
                    Cell::flag(!person.disabled, "enabled", "disabled"),
                ])?;
            }
            table.finish()?;
        }
        PeopleCommand::SetPassword { realm, id } => {
            core.set_person_password(&p, &realm, &id, &password.unwrap_or_default(), &meta)
                .await
                .map_err(core_error)?;
            say!("Password set.");
        }
        PeopleCommand::Disable { realm, id } => {
            core.set_person_disabled(&p, &realm, &id, true, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Disabled {id}: their sign-ins ended, their apps' refresh tokens were revoked, and servers that introspect see their access tokens as inactive. {}",
                revocation_note(core, &realm).await?
            );
        }
        PeopleCommand::Link {
            realm,
            id,
            issuer,
            subject,
        } => {
            core.link_person_identity(&p, &realm, &id, (&issuer, &subject), &meta)
                .await
                .map_err(core_error)?;
            say!("Linked: {issuer}'s ID-JAGs for {subject} act as {id}.");
        }
        PeopleCommand::Unlink {
            realm,
            id,
            issuer,
            subject,
        } => {
            core.unlink_person_identity(&p, &realm, &id, (&issuer, &subject), &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Unlinked {subject} from {id}; the tokens its assertions bought for them were revoked."
            );
        }
        PeopleCommand::Enable { realm, id } => {
            core.set_person_disabled(&p, &realm, &id, false, &meta)
                .await
                .map_err(core_error)?;
            say!("Enabled {id}.");
        }
    }
    Ok(())
}
