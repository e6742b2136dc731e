//! Import from an MCP registry: a `server.json` (schema 2025-12-11) becomes a pinned draft
//! entry with notes for what it cannot carry. A document given by the caller is read as is; a
//! name or URL is fetched read-only through the SSRF-guarded fetcher (https only, redirects
//! only on the same host, at most 1 MiB).
use super::model::{ImportSource, registry_url};
use crate::core::Core;
use crate::error::{Error, Result};
use crate::policy::{Permission, Principal};
use portcullis_manifest::import::{Imported, MAX_DOCUMENT_BYTES, Prefer, import};
use portcullis_manifest::names::check_registry_name;

impl Core {
    /// Reads a `server.json` into a draft entry (not saved: the editor or `--save` does that).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `InvalidField` (`source`: not a name or https URL; the
    /// fetch failed or was refused), `Findings` (the document's problems, by field).
    pub async fn import_registry_server(
        &self,
        p: &Principal,
        realm_name: &str,
        source: ImportSource,
        prefer: Prefer,
    ) -> Result<Imported> {
        p.require(Permission::ManageRegistry)?;
        self.find_realm(realm_name).await?;
        let document = match source {
            ImportSource::Document(bytes) => bytes,
            ImportSource::Fetch(source) => self.fetch_server_json(source.trim()).await?,
        };
        import(&document, prefer).map_err(|f| Error::Findings(f.errors))
    }

    async fn fetch_server_json(&self, source: &str) -> Result<Vec<u8>> {
        let field = |m: String| Error::field("source", m);
        let url = if source.starts_with("https://") || source.starts_with("http://") {
            source.to_owned()
        } else {
            check_registry_name(source).map_err(field)?;
            registry_url(&self.config().registry_import_base, source)
        };
        let parsed = crate::fetch::parse_fetch_url(&url, self.config().allow_loopback_fetch)
            .map_err(|m| field(format!("{url}: {m}")))?;
        let base = &self.config().registry_import_base;
        self.fetcher
            .fetch_document(&parsed, MAX_DOCUMENT_BYTES)
            .await
            .map_err(|e| {
                field(format!(
                    "{url}: {e} (names are read from registry.import_base, now {base}; a server.json file works too)"
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::registry_url;

    #[test]
    fn names_become_latest_version_urls() {
        let official = "https://registry.modelcontextprotocol.io";
        for base in [
            official,
            "https://registry.modelcontextprotocol.io/",
            "https://registry.modelcontextprotocol.io/v0",
            "https://registry.modelcontextprotocol.io/v0.1/",
        ] {
            assert_eq!(
                registry_url(base, "io.github.acme/wiki-mcp"),
                "https://registry.modelcontextprotocol.io/v0.1/servers/io.github.acme%2Fwiki-mcp/versions/latest"
            );
        }
    }
}
