//! Tool pins: what each registry server lists, recorded by the gateway, and what an
//! administrator accepted (compare-and-set against the definition they were shown).
use super::model::{MAX_TOOL_NAME_LEN, MAX_TOOLS_PER_SERVER, PinState, PinnedDefinition, ToolPin};
use crate::audit::{AuditSubject, NewAuditEvent, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, Result};
use crate::policy::{Permission, Principal};
use crate::realms::Realm;

impl Core {
    /// Records what a server lists now, tool by tool (each Tool object whole): a new tool, a
    /// changed definition and a tool no longer listed each write an audit row and wait for an
    /// administrator; unchanged tools write nothing. Returns the server's pins as they now
    /// stand. Tools past [`MAX_TOOLS_PER_SERVER`], with over-long names or too large to pin are
    /// left out (never offered).
    ///
    /// # Errors
    /// Storage failure.
    pub async fn observe_gateway_tools(
        &self,
        realm: &Realm,
        server_id: &str,
        listed: &[serde_json::Value],
    ) -> Result<Vec<ToolPin>> {
        let now = self.now();
        let mut seen: Vec<(String, PinnedDefinition)> = Vec::new();
        for tool in listed.iter().take(MAX_TOOLS_PER_SERVER) {
            let Some(name) = tool.get("name").and_then(|n| n.as_str()) else {
                continue;
            };
            if name.is_empty()
                || name.len() > MAX_TOOL_NAME_LEN
                || seen.iter().any(|(n, _)| n == name)
            {
                continue;
            }
            if let Ok(def) = PinnedDefinition::of(tool) {
                seen.push((name.to_owned(), def));
            }
        }
        // The usual call: the server lists what it listed before. The cached pins say so
        // without a database read or a write.
        let cached = self.cached_tool_pins(&realm.id).await?;
        let mine = || cached.iter().filter(|p| p.server_id == server_id);
        let unchanged = mine().filter(|p| p.seen.is_some()).count() == seen.len()
            && seen.iter().all(|(name, def)| {
                mine().any(|p| {
                    &p.tool == name && p.seen.as_ref().is_some_and(|s| s.sha256 == def.sha256)
                })
            });
        if unchanged {
            let mut pins: Vec<ToolPin> = mine().cloned().collect();
            pins.sort_by(|a, b| a.tool.cmp(&b.tool));
            return Ok(pins);
        }
        let stored: Vec<ToolPin> = self
            .store
            .list_tool_pins(&realm.id)
            .await?
            .into_iter()
            .filter(|p| p.server_id == server_id)
            .collect();
        let mut writes: Vec<(ToolPin, NewAuditEvent)> = Vec::new();
        let event = |pin: &ToolPin, change: &str| {
            let mut e = self.event(
                &realm.id,
                "gateway",
                action::GATEWAY_TOOL_CHANGE,
                AuditSubject::RegistryServer(server_id.to_owned()),
                &RequestMeta::default(),
            );
            e.details = serde_json::json!({
                "tool": pin.tool,
                "change": change,
                "sha256": pin.seen.as_ref().map(|d| d.sha256.clone()),
                "accepted_sha256": pin.accepted.as_ref().map(|d| d.sha256.clone()),
            });
            e
        };
        // A server listing ever new names cannot grow the table without bound.
        let mut room = (2 * MAX_TOOLS_PER_SERVER).saturating_sub(stored.len());
        for (name, def) in &seen {
            let before = stored.iter().find(|p| &p.tool == name);
            if before.is_none() {
                if room == 0 {
                    continue;
                }
                room -= 1;
            }
            if before
                .and_then(|p| p.seen.as_ref())
                .is_some_and(|s| s.sha256 == def.sha256)
            {
                continue;
            }
            let pin = ToolPin {
                realm_id: realm.id.clone(),
                server_id: server_id.to_owned(),
                tool: name.clone(),
                seen: Some(def.clone()),
                seen_at: now,
                accepted: before.and_then(|p| p.accepted.clone()),
                accepted_by: before.and_then(|p| p.accepted_by.clone()),
                accepted_at: before.and_then(|p| p.accepted_at),
            };
            let change = match pin.state() {
                PinState::Accepted => "listed as accepted",
                PinState::New => "new",
                _ => "changed",
            };
            let e = event(&pin, change);
            writes.push((pin, e));
        }
        // Gone: an accepted tool waits for an administrator to acknowledge it; one never
        // accepted is forgotten.
        let mut forgotten = Vec::new();
        for gone in stored
            .iter()
            .filter(|p| p.seen.is_some() && !seen.iter().any(|(n, _)| n == &p.tool))
        {
            let pin = ToolPin {
                seen: None,
                seen_at: now,
                ..gone.clone()
            };
            if gone.accepted.is_some() {
                let e = event(&pin, "removed");
                writes.push((pin, e));
            } else {
                let e = event(&pin, "gone before acceptance");
                forgotten.push((pin.tool, e));
            }
        }
        if !writes.is_empty() {
            self.store.save_tool_pins(&writes).await?;
        }
        if !forgotten.is_empty() {
            self.store
                .delete_tool_pins(&realm.id, server_id, &forgotten)
                .await?;
        }
        let mut pins: Vec<ToolPin> = stored
            .into_iter()
            .filter(|p| !writes.iter().any(|(w, _)| w.tool == p.tool))
            .filter(|p| !forgotten.iter().any(|(t, _)| t == &p.tool))
            .collect();
        pins.extend(writes.into_iter().map(|(p, _)| p));
        pins.sort_by(|a, b| a.tool.cmp(&b.tool));
        Ok(pins)
    }

    /// A realm's tool pins, by server and tool.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn list_tool_pins(&self, p: &Principal, realm_name: &str) -> Result<Vec<ToolPin>> {
        p.require(Permission::ViewRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        Ok(self.store.list_tool_pins(&realm.id).await?)
    }

    /// Accepts what one server lists as an administrator saw it: each `(tool, sha256)` pair
    /// (the definition listed when they looked; empty for a removed tool) is accepted only if
    /// the server still lists exactly that. With no pairs: every tool waiting now (the CLI,
    /// after `tools` and `diff`). Returns how many were accepted.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, or a named tool with nothing waiting).
    pub async fn accept_tool_pins(
        &self,
        p: &Principal,
        realm_name: &str,
        server_id: &str,
        seen: &[(String, String)],
        meta: &RequestMeta,
    ) -> Result<usize> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let waiting: Vec<ToolPin> = self
            .store
            .list_tool_pins(&realm.id)
            .await?
            .into_iter()
            .filter(|t| t.server_id == server_id && t.state() != PinState::Accepted)
            .collect();
        if let Some((missing, _)) = seen
            .iter()
            .find(|(t, _)| !waiting.iter().any(|w| &w.tool == t))
        {
            return Err(Error::not_found(
                "tool waiting for acceptance",
                format!(
                    "{server_id}.{}",
                    missing.chars().take(MAX_TOOL_NAME_LEN).collect::<String>()
                ),
            ));
        }
        let mut accepted = Vec::new();
        for pin in waiting {
            let expected = if seen.is_empty() {
                pin.seen.as_ref().map(|d| d.sha256.clone())
            } else {
                match seen.iter().find(|(t, _)| t == &pin.tool) {
                    Some((_, sha)) if sha.is_empty() => None,
                    Some((_, sha)) => Some(sha.clone()),
                    None => continue,
                }
            };
            let mut e = self.event(
                &realm.id,
                &p.email,
                action::GATEWAY_TOOL_ACCEPT,
                AuditSubject::RegistryServer(server_id.to_owned()),
                meta,
            );
            e.details = serde_json::json!({
                "tool": pin.tool,
                "change": pin.state().as_str(),
                "fields": pin.diff().iter().map(|c| c.field.clone()).collect::<Vec<_>>(),
                "sha256": expected,
            });
            accepted.push((pin.tool, expected, e));
        }
        Ok(self
            .store
            .accept_tool_pins(&realm.id, server_id, &accepted, &p.email, self.now())
            .await?)
    }
}
