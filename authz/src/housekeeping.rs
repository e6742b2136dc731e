//! Periodic housekeeping: forgetting what can no longer matter, so tables stay bounded.
use crate::core::Core;
use crate::error::Result;

pub use crate::storage::Purged;

/// How often the server runs [`Core::purge_expired`].
pub const PURGE_INTERVAL_SECS: u64 = 600;

/// How often the server writes when grants were last used ([`Core::flush_token_use`]).
pub const TOKEN_USE_FLUSH_SECS: u64 = 15;

impl Core {
    /// Deletes expired revocation entries, client-assertion `jti`s, sign-in sessions, codes
    /// and token families (with their refresh tokens), and expires self-registered clients
    /// that went unused for their realm's unused-client lifetime.
    ///
    /// # Errors
    /// On storage failure.
    pub async fn purge_expired(&self) -> Result<Purged> {
        let now = self.now();
        let mut purged = self.store.purge_expired(now).await?;
        purged.flows = self.store.purge_flows(now).await?;
        purged.clients_expired = self.expire_unused_clients().await?;
        Ok(purged)
    }
}
