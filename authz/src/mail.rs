//! E-mail to the people a decision concerns: a developer whose submission was rejected, the
//! contacts of a client a reviewer rejected.
//!
//! Off unless the server is given a [`Mailer`] (SMTP settings). A decision never waits for its
//! e-mail: messages are handed to a background task, and a failure is logged (without the
//! address) and audited, never reported to the person who decided.
use std::sync::Arc;

/// One plain-text message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mail {
    /// Recipients (e-mail addresses).
    pub to: Vec<String>,
    /// The subject line.
    pub subject: String,
    /// The body, plain text.
    pub body: String,
}

/// Recipients one message goes to at most (a client may name many contacts).
pub const MAX_RECIPIENTS: usize = 10;

/// Sends e-mail.
#[async_trait::async_trait]
pub trait Mailer: Send + Sync + std::fmt::Debug {
    /// Sends `mail`; the error says why it could not be sent, in words (never an address).
    async fn send(&self, mail: &Mail) -> Result<(), String>;

    /// Whether it sends anything (without SMTP settings nothing is looked up or queued).
    fn enabled(&self) -> bool {
        true
    }
}

/// Messages on their way at once, at most; beyond it a message is dropped and audited (a
/// stalled relay never piles up tasks).
pub const MAX_SENDING: usize = 32;

/// The mailer of a server without SMTP settings: sends nothing.
#[derive(Debug, Default)]
pub struct NoMail;

#[async_trait::async_trait]
impl Mailer for NoMail {
    async fn send(&self, _mail: &Mail) -> Result<(), String> {
        Ok(())
    }

    fn enabled(&self) -> bool {
        false
    }
}

/// The addresses among `candidates` mail may go to: trimmed, shaped like an address (one `@`,
/// no spaces or line breaks), each once whatever its case, at most [`MAX_RECIPIENTS`].
pub fn recipients<'a>(candidates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in candidates {
        let c = c.trim();
        let plausible = c.len() <= 254
            && c.matches('@').count() == 1
            && !c.starts_with('@')
            && !c.ends_with('@')
            && !c.chars().any(|ch| ch.is_whitespace() || ch.is_control());
        if plausible && !out.iter().any(|o| o.eq_ignore_ascii_case(c)) {
            out.push(c.to_owned());
        }
        if out.len() == MAX_RECIPIENTS {
            break;
        }
    }
    out
}

impl crate::core::Core {
    /// Tells the developer who submitted `resource` that an admin rejected it, and why (only
    /// while their console account exists and is enabled).
    pub(crate) async fn tell_submission_rejected(
        &self,
        resource: &crate::resources::Resource,
        realm: &str,
        reason: &str,
    ) {
        if !self.mailer.enabled() {
            return;
        }
        let to = self
            .console_accounts(resource.submitted_by.as_deref())
            .await;
        let name: String = resource.display_name.chars().take(80).collect();
        let body = format!(
            "An admin rejected the MCP server you submitted to the realm {realm}: {name} ({id}).\n\n\
             Reason: {reason}\n\n\
             It stays disabled: no token is issued for it. Its page in the console shows the \
             details; withdraw it there to submit it again.\n\n{console}/go/{realm}/resources/{id}\n",
            id = resource.slug,
            console = self.config().public_url.trim_end_matches('/'),
        );
        for to in to {
            self.notify(
                &resource.realm_id,
                &format!("resource:{}", resource.slug),
                Mail {
                    to: vec![to],
                    subject: format!("Submission rejected in {realm}: {name}"),
                    body: body.clone(),
                },
            );
        }
    }

    /// The enabled console accounts among `candidates` (their addresses as the accounts hold
    /// them, each once).
    async fn console_accounts<'a>(
        &self,
        candidates: impl IntoIterator<Item = &'a str>,
    ) -> Vec<String> {
        let mut accounts: Vec<String> = Vec::new();
        for contact in recipients(candidates) {
            match self.find_principal_by_email(&contact).await {
                Ok(Some(p)) if !accounts.contains(&p.email) => accounts.push(p.email),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "contact lookup for an e-mail failed"),
            }
        }
        accounts
    }

    /// Tells the contacts of `client` who have a console account (developers learn it; an
    /// address a registrant typed gets nothing) that a reviewer rejected it, and why. The
    /// registrant's own words (its name) stay out of the message.
    pub(crate) async fn tell_client_rejected(
        &self,
        client: &crate::clients::Client,
        realm: &str,
        reason: &str,
    ) {
        if !self.mailer.enabled() {
            return;
        }
        let accounts = self
            .console_accounts(client.metadata.contacts.iter().map(String::as_str))
            .await;
        // A metadata document's client_id is a URL its registrant chose: no link of theirs goes
        // out in this server's mail (the Overview shows it).
        let which =
            if client.registration.kind == crate::clients::RegistrationKind::MetadataDocument {
                "a client registered by its metadata document".to_owned()
            } else {
                format!("the client {}", client.client_id)
            };
        let body = format!(
            "A security reviewer rejected {which} in the realm {realm}, which names you as a \
             contact.\n\nReason: {reason}\n\n\
             It gets no tokens. Fix what the reason says and register it again, or ask a security \
             reviewer. Your Overview in the console lists it:\n\n{console}/\n",
            console = self.config().public_url.trim_end_matches('/'),
        );
        // One message each: contacts never learn whom else a registrant named.
        for to in accounts {
            self.notify(
                &client.realm_id,
                &format!("client:{}", client.client_id),
                Mail {
                    to: vec![to],
                    subject: format!("Client rejected in {realm}"),
                    body: body.clone(),
                },
            );
        }
    }

    /// Replaces the mailer (by default nothing is sent).
    pub fn with_mailer(mut self, mailer: Arc<dyn Mailer>) -> Self {
        self.mailer = mailer;
        self
    }

    /// Sends `mail` in the background (nothing when it has no recipient); a failure is logged
    /// and audited as `mail.failed` in `realm_id` with `what` it was about.
    pub(crate) fn notify(&self, realm_id: &crate::realms::RealmId, what: &str, mail: Mail) {
        if mail.to.is_empty() {
            return;
        }
        let (core, realm_id, what) = (self.clone(), realm_id.clone(), what.to_owned());
        let slot = self.mail_slots.clone().try_acquire_owned();
        tokio::spawn(async move {
            let sent = match slot {
                Ok(_slot) => core.mailer.send(&mail).await,
                Err(_) => Err(format!(
                    "{MAX_SENDING} messages were still on their way; this one was dropped"
                )),
            };
            if let Err(why) = sent {
                tracing::warn!(realm = %realm_id, about = %what, error = %why, "e-mail not sent");
                let event = crate::audit::NewAuditEvent {
                    realm_id,
                    occurred_at: core.now(),
                    actor: "system".into(),
                    action: crate::audit::action::MAIL_FAILED,
                    target: what,
                    related: None,
                    outcome: crate::audit::Outcome::Failure,
                    request_id: None,
                    client_ip: None,
                    details: serde_json::json!({ "error": why, "recipients": mail.to.len() }),
                };
                if let Err(e) = core.store.insert_audit_event(&event).await {
                    tracing::warn!(error = %e, "audit of a failed e-mail not written");
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipients_are_addresses_each_once() {
        assert_eq!(
            recipients([
                " Dev@Example.com ",
                "dev@example.com",
                "not an address",
                "@x",
                "ops@example.com"
            ]),
            ["Dev@Example.com", "ops@example.com"]
        );
        assert!(
            recipients(["a@b\r\nBcc: x@y"]).is_empty(),
            "no header injection"
        );
        let many: Vec<String> = (0..20).map(|i| format!("c{i}@example.com")).collect();
        assert_eq!(
            recipients(many.iter().map(String::as_str)).len(),
            MAX_RECIPIENTS
        );
    }
}
