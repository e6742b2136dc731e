//! A person's account page at a realm: sign in, see and disconnect connected apps, sign out —
//! one call per form post, so the endpoint only extracts, calls and renders.
use super::model::{
    AccountAction, AccountNotice, AccountPage, AccountSignInError, AccountView, SessionCookie,
};
use crate::audit::RequestMeta;
use crate::core::Core;
use crate::error::{Error, Result};

impl Core {
    /// Does what the person asked of their account page, then builds the page to show.
    ///
    /// `browser` is the value of the browser's own cookie and `session` the sign-in cookie it
    /// sent, if any; the caller has checked the form's token against both.
    ///
    /// # Errors
    /// `NotFound` (realm), storage failures. A wrong password, a throttled sign-in, an app
    /// already disconnected or an expired session are part of the page, not errors.
    pub async fn account(
        &self,
        realm_name: &str,
        browser: &str,
        session: Option<&str>,
        action: AccountAction,
        meta: &RequestMeta,
    ) -> Result<AccountPage> {
        match action {
            AccountAction::Show => {
                self.account_page(realm_name, browser, session, SessionCookie::Keep, None)
                    .await
            }
            AccountAction::SignIn { email, password } => {
                let failed = match self
                    .account_sign_in(realm_name, &email, &password, meta)
                    .await
                {
                    Ok(new) => {
                        let cookie = new.0.clone();
                        return self
                            .account_page(
                                realm_name,
                                browser,
                                Some(&cookie),
                                SessionCookie::Set(new),
                                None,
                            )
                            .await;
                    }
                    Err(Error::InvalidCredentials) => AccountSignInError::WrongPassword,
                    Err(Error::Throttled { .. }) => AccountSignInError::Throttled,
                    Err(e) => return Err(e),
                };
                // The next form is bound to whatever sign-in cookie the browser still sends.
                Ok(AccountPage {
                    realm: self.serving_realm_name(realm_name).await?,
                    form_token: self.account_form_token(browser, session),
                    view: AccountView::SignIn {
                        error: Some(failed),
                        email,
                    },
                    cookie: SessionCookie::Keep,
                })
            }
            AccountAction::Disconnect(consent_id) => {
                let Some(s) = session else {
                    return self
                        .account_page(realm_name, browser, None, SessionCookie::Keep, None)
                        .await;
                };
                let notice = match self
                    .revoke_own_connected_app(realm_name, s, &consent_id, meta)
                    .await
                {
                    Ok(()) => AccountNotice::Disconnected {
                        horizon_secs: self.local_token_horizon(realm_name).await?,
                    },
                    Err(Error::NotFound { .. }) => AccountNotice::AlreadyDisconnected,
                    Err(Error::Unauthenticated) => {
                        return self
                            .account_page(realm_name, browser, session, SessionCookie::Keep, None)
                            .await;
                    }
                    Err(e) => return Err(e),
                };
                self.account_page(
                    realm_name,
                    browser,
                    session,
                    SessionCookie::Keep,
                    Some(notice),
                )
                .await
            }
            AccountAction::SignOut => {
                if let Some(s) = session
                    && let Err(e) = self.end_login_session(s).await
                {
                    tracing::error!(error = %e, "Failed to end a sign-in session");
                }
                self.account_page(realm_name, browser, None, SessionCookie::Clear, None)
                    .await
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
        cookie: SessionCookie,
        notice: Option<AccountNotice>,
    ) -> Result<AccountPage> {
        let realm = self.serving_realm_name(realm_name).await?;
        let form_token = self.account_form_token(browser, session);
        let view = match session {
            Some(s) => match self.own_connected_apps(realm_name, s).await {
                Ok((subject, apps)) => AccountView::Apps {
                    subject,
                    apps,
                    notice,
                },
                Err(Error::Unauthenticated) => AccountView::SignIn {
                    error: None,
                    email: String::new(),
                },
                Err(e) => return Err(e),
            },
            None => AccountView::SignIn {
                error: None,
                email: String::new(),
            },
        };
        Ok(AccountPage {
            realm,
            form_token,
            view,
            cookie,
        })
    }
}
