//! Telling the people a decision concerns ([`crate::mail`]): who gets which message, sent in
//! the background.
use crate::mail::{MAX_SENDING, Mail, recipients};

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
                &crate::audit::AuditSubject::Resource(resource.slug.to_string()).target(),
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

    /// Tells the contacts of `rejected` clients (each with its realm's name) who have a console
    /// account (developers learn it; an address a registrant typed gets nothing) that a reviewer
    /// rejected them, and why: one message per person and realm for the whole decision, however
    /// many of the clients name them, audited in that realm if it fails. The registrants' own
    /// words (their clients' names) stay out of it.
    pub(crate) async fn tell_clients_rejected(
        &self,
        rejected: &[(crate::clients::Client, &str)],
        reason: &str,
    ) {
        if !self.mailer.enabled() || rejected.is_empty() {
            return;
        }
        /// One person's rejected clients of one realm.
        struct Told<'a> {
            to: String,
            realm: &'a str,
            realm_id: &'a crate::realms::RealmId,
            clients: Vec<(String, String)>,
        }
        // Who hears of which clients, in the order of the decision.
        let mut told: Vec<Told<'_>> = Vec::new();
        for (client, realm) in rejected {
            // A metadata document's client_id is a URL its registrant chose: no link of theirs
            // goes out in this server's mail (the Overview shows it).
            let which =
                if client.registration.kind == crate::clients::RegistrationKind::MetadataDocument {
                    "a client registered by its metadata document".to_owned()
                } else {
                    format!("the client {}", client.client_id)
                };
            let target = crate::audit::AuditSubject::Client(client.client_id.to_string()).target();
            let accounts = self
                .console_accounts(client.metadata.contacts.iter().map(String::as_str))
                .await;
            for to in accounts {
                let entry = (which.clone(), target.clone());
                match told
                    .iter_mut()
                    .find(|t| t.to == to && *t.realm_id == client.realm_id)
                {
                    Some(t) => t.clients.push(entry),
                    None => told.push(Told {
                        to,
                        realm,
                        realm_id: &client.realm_id,
                        clients: vec![entry],
                    }),
                }
            }
        }
        let console = self.config().public_url.trim_end_matches('/').to_owned();
        // One message each: contacts never learn whom else a registrant named.
        for Told {
            to,
            realm,
            realm_id,
            clients,
        } in told
        {
            let (what, target) = match clients.as_slice() {
                [(one, target)] => (
                    format!(
                        "A security reviewer rejected {one} in the realm {realm}, which names you as a contact."
                    ),
                    target.clone(),
                ),
                many => (
                    format!(
                        "A security reviewer rejected {} clients in the realm {realm} that name you as a contact:\n\n{}",
                        many.len(),
                        many.iter()
                            .map(|(c, _)| format!("- {c}"))
                            .collect::<Vec<_>>()
                            .join("\n")
                    ),
                    format!("{} clients", many.len()),
                ),
            };
            let subject = match clients.len() {
                1 => format!("Client rejected in {realm}"),
                n => format!("{n} clients rejected in {realm}"),
            };
            let body = format!(
                "{what}\n\nReason: {reason}\n\n\
                 A rejected client gets no tokens. Fix what the reason says and register it again, \
                 or ask a security reviewer. Your Overview in the console lists it:\n\n{console}/\n",
            );
            self.notify(
                realm_id,
                &target,
                Mail {
                    to: vec![to],
                    subject,
                    body,
                },
            );
        }
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
