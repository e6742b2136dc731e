//! `admin` commands: console accounts (the `default` realm's users who sign in to the console).
use crate::config::Config;
use clap::Subcommand;

/// `admin` subcommands.
#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Create a console user. The password is prompted for, or read from stdin when piped.
    Create {
        /// Sign-in email.
        #[arg(long)]
        email: String,
        /// Display name.
        #[arg(long)]
        name: String,
        /// Role: admin, security_reviewer or developer.
        #[arg(long, default_value = "admin")]
        role: String,
    },
}

pub(super) async fn admin(config: Config, command: AdminCommand) -> anyhow::Result<()> {
    let AdminCommand::Create { email, name, role } = command;
    let password = super::support::read_password()?;
    crate::init_tracing(&config.log);
    let state = crate::AppState::init(config).await?;
    let user = state
        .core
        .create_user_with_password(&email, &name, &role, &password)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    state.db.close().await;
    say!(
        "Created {} ({}) with role {}.",
        user.email,
        user.id,
        user.role.as_str()
    );
    Ok(())
}
