//! The authorization endpoint (RFC 6749 §4.1 with PKCE, RFC 8707 `resource`, RFC 9207 `iss`):
//! check the request, sign the person in, ask for consent, issue the code.
//!
//! Nothing is stored until a code is issued: the checked request travels between the sign-in and
//! consent pages as a *ticket*, sealed (AES-256-GCM, a key derived from the master key) and bound
//! to the browser that started it (the hash of a cookie only that browser holds), so a forged
//! form post from another site, or a ticket copied to another browser, does nothing.
use super::checks::describe_scope;
use super::model::{
    AuthorizationCode, AuthorizeParams, AuthorizeStep, CODE_TTL_SECS, Consent, ConsentId,
    ConsentPage, FamilyId, LOGIN_SESSION_TTL_SECS, LoginPage, LoginSession, NewLoginSession,
    OpenId, ReviewPage,
};
use super::ticket::{Ticket, page_error};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::clients::{Client, RedirectKind, ReviewState};
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::ids::{ClientRowId, ResourceId};
use crate::people::Subject;
use crate::realms::Realm;
use crate::scope::ScopeSet;
use crate::secret::PlainToken;

/// `uri` with query parameters added (textually: the registered URI is kept byte for byte).
fn with_query(uri: &str, params: &[(&str, &str)]) -> String {
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in params {
        q.append_pair(k, v);
    }
    let sep = if uri.contains('?') { '&' } else { '?' };
    format!("{uri}{sep}{}", q.finish())
}

/// An error sent back to the client.
pub(super) struct Refusal {
    pub(super) code: &'static str,
    pub(super) description: String,
}

pub(super) fn refuse(code: &'static str, description: impl Into<String>) -> Refusal {
    Refusal {
        code,
        description: description.into(),
    }
}

impl Core {
    /// `GET /authorize`: checks the request. An unknown client or a redirect URI that matches
    /// none registered is an error page (`Err`), never a redirect; every other error goes back
    /// to the client with `error`, `state` and `iss`.
    ///
    /// # Errors
    /// `NotFound` (realm), `OAuth` (shown on an error page).
    pub async fn authorize(
        &self,
        realm_name: &str,
        params: &AuthorizeParams,
        browser: &str,
        session: Option<&str>,
        meta: &RequestMeta,
    ) -> Result<AuthorizeStep> {
        let realm = self.serving_realm(realm_name).await?;
        let (client, redirect_uri) = self.authorize_client(&realm, params, meta).await?;
        if client.registration.review == ReviewState::Pending {
            return Ok(AuthorizeStep::AwaitingReview(ReviewPage {
                realm: realm.display_name.clone(),
                client_name: client.name.clone(),
                client_id: client.client_id.to_string(),
                queue_url: self.review_queue_url(),
            }));
        }
        let issuer = self.issuer(&realm.name);
        let state = params.state.clone();
        // RFC 9700 §4.11.2: before anyone interacts, only a client an admin registered or a
        // reviewer approved is answered by redirect; for others an error is a page, so a
        // self-registered client cannot turn the endpoint into an open redirector.
        let verified = client.is_verified();
        let back = |r: Refusal| {
            if !verified {
                return Err(Error::oauth(OAuthErrorCode::InvalidRequest, r.description));
            }
            let mut p = vec![
                ("error", r.code),
                ("error_description", r.description.as_str()),
            ];
            if let Some(s) = &state {
                p.push(("state", s));
            }
            p.push(("iss", issuer.as_str()));
            Ok(AuthorizeStep::Refused {
                location: with_query(&redirect_uri, &p),
                error: r.code,
                description: r.description.clone(),
            })
        };
        let ticket = match self
            .check_request(&realm, &client, &redirect_uri, params, browser)
            .await
        {
            Ok(t) => t,
            Err(r) => return back(r),
        };
        let signed_in = match session {
            Some(cookie) if !ticket.prompt.login => self.session_subject(&realm, cookie).await?,
            _ => None,
        };
        match signed_in {
            Some((subject, auth_time)) => {
                self.continue_as(&realm, ticket, &subject, (auth_time, false), meta)
                    .await
            }
            None if ticket.prompt.none => {
                back(refuse("login_required", "The user is not signed in."))
            }
            None => self.login_step(&realm, &client, &ticket, None, "").await,
        }
    }

    /// `POST` of the sign-in form: on success starts a sign-in session (its cookie value is
    /// returned) and goes on to consent or the code; otherwise the form again, with the error.
    ///
    /// # Errors
    /// `NotFound` (realm), `OAuth` (an expired or foreign ticket: an error page).
    pub async fn authorize_sign_in(
        &self,
        realm_name: &str,
        ticket: &str,
        browser: &str,
        email: &str,
        password: &str,
        meta: &RequestMeta,
    ) -> Result<(AuthorizeStep, Option<NewLoginSession>)> {
        let realm = self.serving_realm(realm_name).await?;
        let ticket = self.open_ticket(&realm, ticket, browser)?;
        let client = self.ticket_client(&realm, &ticket).await?;
        let subject = match self.sign_in_subject(&realm, email, password, meta).await {
            Ok(s) => s,
            Err(e @ (Error::InvalidCredentials | Error::Throttled { .. })) => {
                let error = match e {
                    Error::Throttled { retry_after_secs } => {
                        format!("Too many attempts. Try again in {retry_after_secs} seconds.")
                    }
                    _ => "That email and password do not match.".to_owned(),
                };
                let step = self
                    .login_step(&realm, &client, &ticket, Some(error), email)
                    .await?;
                return Ok((step, None));
            }
            Err(e) => return Err(e),
        };
        let event = self.event(
            &realm.id,
            &subject.email,
            action::AUTHORIZE_LOGIN,
            crate::people::subject_target(&subject.id),
            meta,
        );
        self.signed_in_step(&realm, ticket, &subject, event, meta)
            .await
    }

    /// Starts a sign-in session for `subject` (with its `authorize.login` row) and goes on to
    /// consent or the code.
    pub(super) async fn signed_in_step(
        &self,
        realm: &Realm,
        ticket: Ticket,
        subject: &Subject,
        event: crate::audit::NewAuditEvent,
        meta: &RequestMeta,
    ) -> Result<(AuthorizeStep, Option<NewLoginSession>)> {
        let session = self.new_login_session(realm, subject, &event).await?;
        let step = self
            .continue_as(realm, ticket, subject, (self.now(), true), meta)
            .await?;
        Ok((step, Some(session)))
    }

    /// Starts a sign-in session for `subject`, written with its `authorize.login` row; the
    /// cookie value.
    pub(super) async fn new_login_session(
        &self,
        realm: &Realm,
        subject: &Subject,
        event: &crate::audit::NewAuditEvent,
    ) -> Result<NewLoginSession> {
        let now = self.now();
        let cookie = PlainToken::generate();
        let session = LoginSession {
            id_hash: cookie.hashed(),
            realm_id: realm.id.clone(),
            subject: subject.id.clone(),
            auth_time: now,
            expires_at: now + LOGIN_SESSION_TTL_SECS,
        };
        self.store.insert_login_session(&session, event).await?;
        Ok(NewLoginSession(cookie.expose().to_owned()))
    }

    /// The sign-in page for a request: the password form (unless the realm turned it off) and
    /// the realm's sign-in providers.
    pub(super) async fn login_step(
        &self,
        realm: &Realm,
        client: &Client,
        ticket: &Ticket,
        error: Option<String>,
        email: &str,
    ) -> Result<AuthorizeStep> {
        Ok(AuthorizeStep::Login(LoginPage {
            realm: realm.display_name.clone(),
            client_name: client.name.clone(),
            client_verified: client.is_verified(),
            ticket: self.seal_ticket(ticket)?,
            error,
            email: email.chars().take(254).collect(),
            providers: self.sign_in_buttons(realm).await?,
            password: realm.password_sign_in,
        }))
    }

    /// `POST` of the consent form: approve issues the code (and remembers the consent), deny
    /// sends `access_denied` back.
    ///
    /// # Errors
    /// `NotFound` (realm), `OAuth` (an expired or foreign ticket, or a ticket without a
    /// sign-in: an error page).
    pub async fn authorize_decide(
        &self,
        realm_name: &str,
        ticket: &str,
        browser: &str,
        session: Option<&str>,
        approve: bool,
        meta: &RequestMeta,
    ) -> Result<AuthorizeStep> {
        let realm = self.serving_realm(realm_name).await?;
        let ticket = self.open_ticket(&realm, ticket, browser)?;
        let (Some(subject_id), Some(auth_time)) = (ticket.subject.clone(), ticket.auth_time) else {
            return Err(page_error("Sign in first."));
        };
        // Still signed in as the person the page was for (not signed out since, not someone
        // else now).
        let signed_in = match session {
            Some(cookie) => self.session_subject(&realm, cookie).await?,
            None => None,
        };
        if signed_in.is_none_or(|(s, _)| s.id != subject_id) {
            return Err(page_error(
                "You are no longer signed in. Go back to the application and connect again.",
            ));
        }
        // One answer per page: a second post of the same form does nothing.
        let used = crate::clients::ClientId::parse("authorize-ticket")
            .map_err(|_| Error::Internal("ticket namespace".into()))?;
        if ticket.id.is_empty()
            || !self
                .store
                .consume_assertion_jti(&realm.id, &used, &ticket.id, ticket.exp)
                .await?
        {
            return Err(page_error(
                "This page was already answered. Go back to the application and connect again.",
            ));
        }
        let Some(subject) = self.live_subject(&realm, &subject_id).await? else {
            return Err(page_error("This account can no longer sign in."));
        };
        let client = self.ticket_client(&realm, &ticket).await?;
        let resource = self.ticket_resource(&realm, &ticket).await?;
        let scopes = ScopeSet::parse(&ticket.scopes).map_err(|_| page_error("Bad ticket."))?;
        let target = AuditSubject::Client(client.client_id.to_string());
        let mut event = self.event(
            &realm.id,
            &subject.email,
            if approve {
                action::CONSENT_GRANT
            } else {
                action::CONSENT_DENY
            },
            target,
            meta,
        );
        event.related = Some(AuditSubject::Resource(resource.slug.to_string()).target());
        event.details = serde_json::json!({
            "subject": subject.id,
            "scopes": scopes.to_string(),
            "offline": ticket.offline,
            "openid": ticket.openid.map(OpenId::scope),
        });
        if ticket.device.is_some() && !approve {
            return self
                .deny_device(&realm, &ticket, &client, &subject, &event)
                .await;
        }
        if !approve {
            self.store.insert_audit_event(&event).await?;
            return Ok(self.refusal_redirect(
                &realm,
                &ticket,
                &refuse("access_denied", "The user refused."),
            ));
        }
        let now = self.now();
        let mut remembered = scopes.clone();
        if ticket.offline {
            remembered = remembered.union(&ScopeSet::parse("offline_access").unwrap_or_default());
        }
        // What the client may learn about the person is agreed to like any scope.
        if let Some(openid) = ticket.openid {
            remembered = remembered.union(&ScopeSet::parse(&openid.scope()).unwrap_or_default());
        }
        let previous = self
            .store
            .find_consent(&subject.id, &client.id, &resource.id)
            .await?;
        let consent = Consent {
            id: previous
                .as_ref()
                .map_or_else(ConsentId::generate, |c| c.id.clone()),
            realm_id: realm.id.clone(),
            subject: subject.id.clone(),
            client_pk: client.id.clone(),
            resource_id: resource.id.clone(),
            scopes: previous.map_or(remembered.clone(), |c| c.scopes.union(&remembered)),
            created_at: now,
            updated_at: now,
        };
        self.store.save_consent(&consent, &event).await?;
        if ticket.device.is_some() {
            return self
                .approve_device(&realm, &ticket, &client, &subject, auth_time, meta)
                .await;
        }
        self.issue_code(&realm, &ticket, &subject, auth_time, meta)
            .await
    }

    /// Ends a sign-in session (its cookie value).
    ///
    /// # Errors
    /// On storage failure.
    pub async fn end_login_session(&self, cookie: &str) -> Result<()> {
        Ok(self
            .store
            .delete_login_session(&PlainToken::from_input(cookie).hashed())
            .await?)
    }

    /// The signed-in subject of a session cookie, if it is live.
    pub(crate) async fn session_subject(
        &self,
        realm: &Realm,
        cookie: &str,
    ) -> Result<Option<(Subject, i64)>> {
        let hash = PlainToken::from_input(cookie).hashed();
        let Some(s) = self
            .store
            .find_login_session(&realm.id, &hash, self.now())
            .await?
        else {
            return Ok(None);
        };
        Ok(self
            .live_subject(realm, &s.subject)
            .await?
            .map(|subject| (subject, s.auth_time)))
    }

    /// With a signed-in subject: the code at once when they agreed to this before (and no
    /// prompt asks again), else the consent page.
    pub(super) async fn continue_as(
        &self,
        realm: &Realm,
        mut ticket: Ticket,
        subject: &Subject,
        (auth_time, interacted): (i64, bool),
        meta: &RequestMeta,
    ) -> Result<AuthorizeStep> {
        let client = self.ticket_client(realm, &ticket).await?;
        let resource = self.ticket_resource(realm, &ticket).await?;
        let scopes = ScopeSet::parse(&ticket.scopes).map_err(|_| page_error("Bad ticket."))?;
        // As before sign-in (RFC 9700 §4.11.2): without the person acting in this request, a
        // client nobody verified is answered with a page, never a redirect, so a signed-in
        // person following a link cannot be bounced to whatever it registered.
        let may_redirect = (interacted || client.is_verified()) && ticket.device.is_none();
        let refused = |ticket: &Ticket, r: Refusal| {
            if may_redirect {
                Ok(self.refusal_redirect(realm, ticket, &r))
            } else {
                Err(Error::oauth(OAuthErrorCode::InvalidRequest, r.description))
            }
        };
        if !resource.policy.admits(&subject.roles) {
            return refused(
                &ticket,
                refuse(
                    "access_denied",
                    "This account may not use the resource (it lacks a role the resource requires).",
                ),
            );
        }
        let consent = self
            .store
            .find_consent(&subject.id, &client.id, &resource.id)
            .await?;
        let covered = consent.is_some_and(|c| {
            scopes.iter().all(|s| c.scopes.contains(s))
                && (!ticket.offline || c.scopes.contains("offline_access"))
                && ticket
                    .openid
                    .is_none_or(|o| o.scope().split(' ').all(|s| c.scopes.contains(s)))
        });
        ticket.subject = Some(subject.id.clone());
        ticket.auth_time = Some(auth_time);
        // RFC 8252 §8.6: a public client redirecting to loopback or an app scheme cannot be told
        // from any local program or app claiming the scheme, so the person confirms each time.
        let impersonable = client.auth_method == crate::clients::AuthMethod::None
            && RedirectKind::of_str(&ticket.redirect_uri) != Some(RedirectKind::Https);
        // A device authorization is always confirmed on the page that shows its code (RFC 8628
        // §5.4: the person checks it is the code their own device shows).
        if covered && !ticket.prompt.consent && !impersonable && ticket.device.is_none() {
            return self
                .issue_code(realm, &ticket, subject, auth_time, meta)
                .await;
        }
        if ticket.prompt.none {
            return refused(
                &ticket,
                refuse("consent_required", "The user has not agreed to this yet."),
            );
        }
        let redirect = url::Url::parse(&ticket.redirect_uri).ok();
        let redirect_kind = redirect
            .as_ref()
            .and_then(RedirectKind::of)
            .unwrap_or(RedirectKind::PrivateUse);
        let redirect_origin = match &redirect {
            Some(u) if u.has_host() => {
                let port = u.port().map(|p| format!(":{p}")).unwrap_or_default();
                format!(
                    "{}://{}{port}",
                    u.scheme(),
                    u.host_str().unwrap_or_default()
                )
            }
            Some(u) => format!("{}:", u.scheme()),
            None => ticket.redirect_uri.clone(),
        };
        Ok(AuthorizeStep::Consent(ConsentPage {
            realm: realm.display_name.clone(),
            client_name: client.name.clone(),
            client_id: client.client_id.to_string(),
            logo_uri: client.metadata.logo_uri.clone(),
            verified: client.is_verified(),
            redirect_origin,
            redirect_kind,
            resource_name: resource.display_name.clone(),
            resource_uri: resource.uri.to_string(),
            scopes: ticket
                .openid
                .map(|o| o.scope())
                .iter()
                .flat_map(|o| o.split(' '))
                .chain(scopes.iter())
                .map(|s| (s.to_owned(), describe_scope(s)))
                .collect(),
            offline: ticket.offline,
            subject_name: subject.display_name.clone(),
            subject_email: subject.email.clone(),
            device_user_code: ticket.user_code.clone(),
            purpose: (crate::clients::is_first_party(client.client_id.as_str())
                && resource.uri.to_string() == self.registry_audience(&realm.name))
            .then(|| {
                "Portcullis CLI then gets five-minute tokens, one server at a time, for the MCP servers your organisation's registry gives you, until you sign out (portcullis-cli logout) or disconnect it on your account page.".to_owned()
            }),
            ticket: self.seal_ticket(&ticket)?,
        }))
    }

    /// A code for the ticket (stored only by the caller) and its audit event: what the person
    /// agreed to, redeemable within `ttl` seconds.
    pub(super) fn new_code(
        &self,
        realm: &Realm,
        ticket: &Ticket,
        subject: &Subject,
        (auth_time, ttl): (i64, i64),
        meta: &RequestMeta,
    ) -> Result<(PlainToken, AuthorizationCode, crate::audit::NewAuditEvent)> {
        let now = self.now();
        let code = PlainToken::generate();
        let row = AuthorizationCode {
            code_hash: code.hashed(),
            family_id: FamilyId::generate(),
            realm_id: realm.id.clone(),
            subject: subject.id.clone(),
            client_pk: ClientRowId::from_stored(ticket.client.as_str()),
            resource_id: ResourceId::from_stored(ticket.resource.as_str()),
            redirect_uri: ticket.redirect_uri.clone(),
            code_challenge: ticket.challenge.clone(),
            scopes: ScopeSet::parse(&ticket.scopes).map_err(|_| page_error("Bad ticket."))?,
            offline: ticket.offline,
            openid: ticket.openid,
            nonce: ticket.nonce.clone(),
            auth_time,
            created_at: now,
            expires_at: now + ttl,
            redeemed_at: None,
        };
        let mut event = self.event(
            &realm.id,
            &subject.email,
            action::CODE_ISSUE,
            AuditSubject::Client(ticket.client_id.to_string()),
            meta,
        );
        event.details = serde_json::json!({
            "subject": subject.id,
            "family": row.family_id.as_str(),
            "scopes": row.scopes.to_string(),
            "offline": row.offline,
            "openid": row.openid.map(OpenId::scope),
        });
        Ok((code, row, event))
    }

    /// Stores a code for the ticket and redirects with it.
    async fn issue_code(
        &self,
        realm: &Realm,
        ticket: &Ticket,
        subject: &Subject,
        auth_time: i64,
        meta: &RequestMeta,
    ) -> Result<AuthorizeStep> {
        let (code, row, event) =
            self.new_code(realm, ticket, subject, (auth_time, CODE_TTL_SECS), meta)?;
        self.store.insert_code(&row, &event).await?;
        let issuer = self.issuer(&realm.name);
        let mut p = vec![("code", code.expose())];
        if let Some(s) = &ticket.state {
            p.push(("state", s));
        }
        p.push(("iss", issuer.as_str()));
        Ok(AuthorizeStep::Redirect(with_query(
            &ticket.redirect_uri,
            &p,
        )))
    }

    fn refusal_redirect(&self, realm: &Realm, ticket: &Ticket, r: &Refusal) -> AuthorizeStep {
        let issuer = self.issuer(&realm.name);
        let mut p = vec![
            ("error", r.code),
            ("error_description", r.description.as_str()),
        ];
        if let Some(s) = &ticket.state {
            p.push(("state", s));
        }
        p.push(("iss", issuer.as_str()));
        AuthorizeStep::Refused {
            location: with_query(&ticket.redirect_uri, &p),
            error: r.code,
            description: r.description.clone(),
        }
    }

    /// The token an account-page form carries: an HMAC, under a key only this server holds
    /// (derived from the master key), of the browser-binding cookie and the sign-in session
    /// cookie when there is one. Another site can compute it for neither; and one that sets a
    /// browser cookie of its own (a sibling host) still lacks the token of the victim's session.
    pub fn account_form_token(&self, browser: &str, session: Option<&str>) -> String {
        let key = self.config().master_key.derive("portcullis account form");
        let mut bound = browser.as_bytes().to_vec();
        bound.push(0);
        bound.extend_from_slice(session.unwrap_or_default().as_bytes());
        hex::encode(key.mac(&bound))
    }

    /// Whether `sent` is the account-form token for this browser and session (constant time).
    pub fn account_form_token_matches(
        &self,
        browser: &str,
        session: Option<&str>,
        sent: &str,
    ) -> bool {
        let expected = self.account_form_token(browser, session);
        expected.len() == sent.len()
            && crate::secret::constant_time_eq(expected.as_bytes(), sent.as_bytes())
    }
}
