//! Console users as the console shows them.
use super::moment;
use crate::types::users::UserView;

/// View of a user.
pub fn user_view(u: &authz::accounts::User, now: i64) -> UserView {
    UserView {
        id: u.id.to_string(),
        email: u.email.to_string(),
        display_name: u.display_name.clone(),
        role: u.role.as_str().to_owned(),
        disabled: u.disabled,
        has_password: u.password_hash.is_some(),
        sso_provider: u.sso_provider.clone(),
        break_glass: u.break_glass,
        second_factor_since: u.second_factor_since.map(|t| moment(now, t)),
        created: moment(now, u.created_at),
    }
}
