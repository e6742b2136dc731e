//! A person's account page at a realm: sign in, see and disconnect connected apps, sign out —
//! one call per request, so the endpoint only extracts, calls and renders. A post that changed
//! something answers with where to go next (post/redirect/get), so a reload never posts twice.
use super::model::{
    AccountAction, AccountDone, AccountNotice, AccountPage, AccountSignInError, AccountStep,
    AccountView, SessionCookie,
};
use crate::audit::RequestMeta;
use crate::core::Core;
use crate::error::{Error, Result};

impl Core {
    /// Does what the person asked of their account page: the page to show, or what was done.
    ///
    /// `browser` is the value of the browser's own cookie and `session` the sign-in cookie it
    /// sent, if any; for a post, the caller has checked the form's token against both.
    ///
    /// # Errors
    /// `NotFound` (realm), storage failures. A wrong password, a throttled sign-in, an app
    /// already disconnected or an expired session are part of the answer, not errors.
    pub async fn account(
        &self,
        realm_name: &str,
        browser: &str,
        session: Option<&str>,
        action: AccountAction,
        meta: &RequestMeta,
    ) -> Result<AccountStep> {
        let done = |done, cookie| Ok(AccountStep::Done { done, cookie });
        match action {
            AccountAction::Show(after) => {
                let notice = match after {
                    None | Some(AccountDone::SignedIn | AccountDone::SignedOut) => None,
                    Some(AccountDone::Disconnected) => Some(AccountNotice::Disconnected {
                        horizon_secs: self.local_token_horizon(realm_name).await?,
                    }),
                    Some(AccountDone::AlreadyDisconnected) => {
                        Some(AccountNotice::AlreadyDisconnected)
                    }
                    Some(AccountDone::ServerDisconnected) => {
                        Some(AccountNotice::ServerDisconnected)
                    }
                };
                self.account_page(realm_name, browser, session, notice)
                    .await
                    .map(AccountStep::Page)
            }
            AccountAction::SignIn { email, password } => {
                let failed = match self
                    .account_sign_in(realm_name, &email, &password, meta)
                    .await
                {
                    Ok(new) => return done(AccountDone::SignedIn, SessionCookie::Set(new)),
                    Err(Error::InvalidCredentials) => AccountSignInError::WrongPassword,
                    Err(Error::Throttled { .. }) => AccountSignInError::Throttled,
                    Err(e) => return Err(e),
                };
                // The next form is bound to whatever sign-in cookie the browser still sends.
                self.account_sign_in_page(realm_name, browser, session, Some(failed), email)
                    .await
                    .map(AccountStep::Page)
            }
            AccountAction::Disconnect(consent_id) => {
                let Some(s) = session else {
                    return self
                        .account_page(realm_name, browser, None, None)
                        .await
                        .map(AccountStep::Page);
                };
                match self
                    .revoke_own_connected_app(realm_name, s, &consent_id, meta)
                    .await
                {
                    Ok(()) => done(AccountDone::Disconnected, SessionCookie::Keep),
                    Err(Error::NotFound { .. }) => {
                        done(AccountDone::AlreadyDisconnected, SessionCookie::Keep)
                    }
                    Err(Error::Unauthenticated) => self
                        .account_page(realm_name, browser, session, None)
                        .await
                        .map(AccountStep::Page),
                    Err(e) => Err(e),
                }
            }
            AccountAction::DisconnectServer(server_id) => {
                let Some(s) = session else {
                    return self
                        .account_page(realm_name, browser, None, None)
                        .await
                        .map(AccountStep::Page);
                };
                match self
                    .disconnect_own_gateway_connection(realm_name, s, &server_id, meta)
                    .await
                {
                    Ok(()) | Err(Error::NotFound { .. }) => {
                        done(AccountDone::ServerDisconnected, SessionCookie::Keep)
                    }
                    Err(Error::Unauthenticated) => self
                        .account_page(realm_name, browser, session, None)
                        .await
                        .map(AccountStep::Page),
                    Err(e) => Err(e),
                }
            }
            AccountAction::Upstream(provider) => {
                match self
                    .account_upstream(realm_name, browser, &provider)
                    .await?
                {
                    Some((url, pending)) => Ok(AccountStep::Upstream { url, pending }),
                    None => self
                        .account_sign_in_page(
                            realm_name,
                            browser,
                            session,
                            Some(AccountSignInError::ProviderUnreachable),
                            String::new(),
                        )
                        .await
                        .map(AccountStep::Page),
                }
            }
            AccountAction::SignOut => {
                if let Some(s) = session
                    && let Err(e) = self.end_login_session(s).await
                {
                    tracing::error!(error = %e, "Failed to end a sign-in session");
                }
                done(AccountDone::SignedOut, SessionCookie::Clear)
            }
        }
    }

    /// The page for this browser: its apps when `session` is a live sign-in, else the sign-in
    /// form.
    async fn account_page(
        &self,
        realm_name: &str,
        browser: &str,
        session: Option<&str>,
        notice: Option<AccountNotice>,
    ) -> Result<AccountPage> {
        let signed_in = match session {
            Some(s) => match self.own_connected_apps(realm_name, s).await {
                Ok(found) => Some(found),
                Err(Error::Unauthenticated) => None,
                Err(e) => return Err(e),
            },
            None => None,
        };
        let (Some((subject, apps)), Some(session)) = (signed_in, session) else {
            return self
                .account_sign_in_page(realm_name, browser, session, None, String::new())
                .await;
        };
        let servers = self.own_gateway_connections(realm_name, session).await?;
        Ok(AccountPage {
            realm: self.serving_realm_name(realm_name).await?,
            form_token: self.account_form_token(browser, Some(session)),
            view: AccountView::Apps {
                subject,
                apps,
                servers,
                notice,
            },
        })
    }

    /// The account page's sign-in form: the password (unless the realm turned it off) and the
    /// realm's sign-in providers.
    async fn account_sign_in_page(
        &self,
        realm_name: &str,
        browser: &str,
        session: Option<&str>,
        error: Option<AccountSignInError>,
        email: String,
    ) -> Result<AccountPage> {
        let realm = self.serving_realm(realm_name).await?;
        Ok(AccountPage {
            form_token: self.account_form_token(browser, session),
            view: AccountView::SignIn {
                error,
                email,
                providers: self.sign_in_buttons(&realm).await?,
                password: realm.password_sign_in,
            },
            realm: realm.display_name,
        })
    }
}
