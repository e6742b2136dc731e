//! `keys` commands: rotate a realm's signing keys, list them, measure the signing rate. Each is
//! one core call, audited as `cli`.
use super::support::core_error;
use super::table::{Cell, ListFormat, Table};
use clap::Subcommand;

/// `keys` subcommands.
#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Rotate: the next key becomes active, the active key retires (still published until its
    /// tokens expire), a new next key is created.
    Rotate {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
    },
    /// List keys and their states.
    List {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        #[command(flatten)]
        format: ListFormat,
    },
    /// Measure the single-core signing rate of the realm's active key (for the benchmark).
    BenchSign {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// ES256, RS256 or EdDSA.
        #[arg(long, default_value = "ES256")]
        alg: String,
        /// How long to sign for.
        #[arg(long, default_value_t = 3)]
        seconds: u64,
    },
}

pub(super) async fn keys(core: &authz::Core, command: KeysCommand) -> anyhow::Result<()> {
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        KeysCommand::Rotate { realm } => {
            let active = core
                .rotate_signing_keys(&cli, &realm, &meta)
                .await
                .map_err(core_error)?;
            say!("Rotated realm {realm}; now active: {}", active.join(", "));
        }
        KeysCommand::BenchSign {
            realm,
            alg,
            seconds,
        } => {
            let alg = authz::keys::SigningAlg::parse(&alg).map_err(anyhow::Error::msg)?;
            let signer = core
                .signer_for_benchmark(&cli, &realm, alg)
                .await
                .map_err(core_error)?;
            let claims = serde_json::json!({
                "iss": "https://id.example.com/realms/default", "sub": "bench-client",
                "aud": "https://bench.example.com/mcp", "client_id": "bench-client", "scope": "tools:call",
                "iat": 1_800_000_000, "exp": 1_800_000_300, "jti": "at_0123456789abcdef01234567",
            });
            let start = std::time::Instant::now();
            let mut n: u64 = 0;
            while start.elapsed().as_secs() < seconds {
                for _ in 0..100 {
                    signer.sign("at+jwt", &claims).map_err(anyhow::Error::msg)?;
                }
                n += 100;
            }
            say!(
                "signatures/s: {:.0}",
                n as f64 / start.elapsed().as_secs_f64()
            );
        }
        KeysCommand::List { realm, format } => {
            let mut table = Table::new(format, ["kid", "alg", "state", "published"]);
            for k in core
                .list_signing_keys(&cli, &realm)
                .await
                .map_err(core_error)?
            {
                table.row([
                    k.kid.into(),
                    k.alg.to_string().into(),
                    k.state.into(),
                    Cell::flag(k.published, "published", "unpublished"),
                ])?;
            }
            table.finish()?;
        }
    }
    Ok(())
}
