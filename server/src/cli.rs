//! The command line: `serve`, `migrate`, `print-config`, `validate-config`, `admin create`.
use crate::config::Config;
use anyhow::Context as _;
use clap::{Parser, Subcommand};
use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;

/// Portcullis: the authorization server for MCP.
#[derive(Debug, Parser)]
#[command(name = "portcullis", version, about)]
pub struct Cli {
    /// Config file (default: ./portcullis.toml when present).
    #[arg(long, global = true, env = "PORTCULLIS_CONFIG")]
    pub config: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply migrations and serve the console and endpoints.
    Serve,
    /// Apply database migrations and exit.
    Migrate,
    /// Print the effective configuration (secrets redacted).
    PrintConfig,
    /// Check the configuration and exit non-zero if it is invalid.
    ValidateConfig,
    /// Manage console accounts.
    Admin {
        /// Admin subcommand.
        #[command(subcommand)]
        command: AdminCommand,
    },
}

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

/// Runs the parsed command.
///
/// # Errors
/// Whatever the command fails with, with context.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    let config = Config::load(cli.config.as_deref())?;
    match cli.command {
        Command::ValidateConfig => {
            println!("Configuration is valid.");
            Ok(())
        }
        Command::PrintConfig => {
            print!("{}", config.redacted_toml());
            Ok(())
        }
        Command::Serve => {
            crate::init_tracing(&config.log);
            crate::serve(config).await
        }
        Command::Migrate => {
            crate::init_tracing(&config.log);
            let db = crate::connect(&config).await?;
            db.migrate()
                .await
                .context("Failed to apply database migrations")?;
            db.close().await;
            println!("Migrations applied.");
            Ok(())
        }
        Command::Admin {
            command: AdminCommand::Create { email, name, role },
        } => {
            let password = read_password()?;
            crate::init_tracing(&config.log);
            let state = crate::AppState::init(config).await?;
            let user = state
                .core
                .create_user_with_password(&email, &name, &role, &password)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            state.db.close().await;
            println!(
                "Created {} ({}) with role {}.",
                user.email,
                user.id,
                user.role.as_str()
            );
            Ok(())
        }
    }
}

fn read_password() -> anyhow::Result<String> {
    if std::io::stdin().is_terminal() {
        let first =
            rpassword::prompt_password("Password: ").context("Failed to read the password")?;
        let second = rpassword::prompt_password("Repeat password: ")
            .context("Failed to read the password")?;
        anyhow::ensure!(first == second, "The two passwords do not match.");
        Ok(first)
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .context("Failed to read the password from stdin")?;
        Ok(line.trim_end_matches(['\r', '\n']).to_owned())
    }
}
