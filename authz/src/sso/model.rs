//! Console single sign-on types: the OpenID Connect providers console users sign in with, and the
//! rules that turn a provider's groups into a console role.
use crate::clock::UnixTime;
use crate::ids::{RealmId, UserId};
use crate::policy::Role;
use serde::{Deserialize, Serialize};

pub use crate::ids::SsoProviderId;

/// What a change that would leave password sign-in off without a break-glass admin is told.
pub const NO_BREAK_GLASS_LEFT: &str = "Password sign-in is off for all but break-glass admins, and this would leave none: mark another admin with a password as break-glass first, or turn password sign-in back on.";

/// Most sign-in providers the console offers.
pub const MAX_SSO_PROVIDERS: usize = 10;
/// Most group values one role rule lists.
pub const MAX_RULE_VALUES: usize = 50;
/// Longest group value, client id or claim name.
pub const MAX_VALUE_LEN: usize = 255;
/// The group value that matches everyone the provider signs in.
pub const ANYONE: &str = "*";
/// How long a started sign-in may take at the provider before its callback is refused.
pub const SIGN_IN_TTL_SECS: i64 = 600;
/// Scopes asked for when none are configured.
pub const DEFAULT_SCOPES: &str = "openid email profile";
/// The claim read for groups when none is configured.
pub const DEFAULT_GROUPS_CLAIM: &str = "groups";

/// Which groups grant which console role. The most privileged role with a match wins; a
/// provider identity matching none gets no access.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoleRules {
    /// Groups that make an admin.
    #[serde(default)]
    pub admin: Vec<String>,
    /// Groups that make a security reviewer.
    #[serde(default)]
    pub security_reviewer: Vec<String>,
    /// Groups that make a developer.
    #[serde(default)]
    pub developer: Vec<String>,
}

impl RoleRules {
    /// The role `groups` map to: the most privileged rule with a matching value (or `*`).
    pub fn role_for(&self, groups: &[String]) -> Option<Role> {
        let hit = |values: &[String]| {
            values
                .iter()
                .any(|v| v == ANYONE || groups.iter().any(|g| g == v))
        };
        [
            (Role::Admin, &self.admin),
            (Role::SecurityReviewer, &self.security_reviewer),
            (Role::Developer, &self.developer),
        ]
        .into_iter()
        .find(|(_, values)| hit(values))
        .map(|(role, _)| role)
    }

    /// The values of one role.
    pub fn values(&self, role: Role) -> &[String] {
        match role {
            Role::Admin => &self.admin,
            Role::SecurityReviewer => &self.security_reviewer,
            Role::Developer => &self.developer,
        }
    }

    /// Whether no rule grants anything (nobody could sign in).
    pub fn is_empty(&self) -> bool {
        self.admin.is_empty() && self.security_reviewer.is_empty() && self.developer.is_empty()
    }
}

/// An OpenID Connect provider console users sign in with.
#[derive(Clone, PartialEq, Eq)]
pub struct SsoProvider {
    /// Row id; also in the provider's redirect URI.
    pub id: SsoProviderId,
    /// The administration realm.
    pub realm_id: RealmId,
    /// Shown to admins and in the audit log.
    pub display_name: String,
    /// The sign-in button's text.
    pub button_text: String,
    /// The provider's issuer identifier (its discovery document lives below it).
    pub issuer: String,
    /// Portcullis's client id at the provider.
    pub client_id: String,
    /// The client secret, sealed with the master key; `None` for a public client.
    pub sealed_client_secret: Option<Vec<u8>>,
    /// Scopes asked for (always including `openid`).
    pub scopes: Vec<String>,
    /// The claim (in the ID token or at userinfo) that carries the groups.
    pub groups_claim: String,
    /// Groups to roles.
    pub rules: RoleRules,
    /// Whether an email it does not mark verified (`email_verified` absent) is taken as the
    /// account's; one it marks unverified never is.
    pub trust_email: bool,
    /// For a role that requires a second factor: `amr` values (RFC 8176) any one of which in
    /// the ID token proves one.
    pub second_factor_amr: Vec<String>,
    /// For a role that requires a second factor: `acr` values any one of which proves one (also
    /// sent as `acr_values`).
    pub second_factor_acr: Vec<String>,
    /// Whether it signs in the realm's people (else console accounts).
    pub for_people: bool,
    /// For a realm's provider: which groups give its people which roles, units and rings
    /// (console providers use `rules`).
    pub group_mapping: Vec<GroupRule>,
    /// A disabled provider signs no one in, and its accounts' sessions end.
    pub enabled: bool,
    /// Creation time.
    pub created_at: UnixTime,
    /// Last change.
    pub updated_at: UnixTime,
}

impl SsoProvider {
    /// Whether it is set up to prove a second factor in its ID tokens (`amr` / `acr`).
    pub fn proves_second_factor(&self) -> bool {
        !self.second_factor_amr.is_empty() || !self.second_factor_acr.is_empty()
    }

    /// Whether a verified sign-in shows a second factor: one of the provider's `amr` values
    /// among the token's, or its `acr` among the provider's.
    pub fn second_factor_shown(&self, identity: &SsoIdentity) -> bool {
        identity
            .amr
            .iter()
            .any(|a| self.second_factor_amr.contains(a))
            || identity
                .acr
                .as_ref()
                .is_some_and(|a| self.second_factor_acr.contains(a))
    }
}

impl std::fmt::Debug for SsoProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsoProvider")
            .field("id", &self.id)
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("enabled", &self.enabled)
            .finish_non_exhaustive()
    }
}

/// A provider as typed into the console or the CLI.
#[derive(Debug, Clone, Default)]
pub struct SsoProviderInput {
    /// Display name.
    pub display_name: String,
    /// Button text (defaults to "Sign in with {display name}").
    pub button_text: String,
    /// Issuer URL.
    pub issuer: String,
    /// Client id at the provider.
    pub client_id: String,
    /// Client secret; empty keeps the stored one on update (see `clear_secret`).
    pub client_secret: String,
    /// Drops the stored secret (a public client).
    pub clear_secret: bool,
    /// Scopes, separated by spaces (empty: openid email profile).
    pub scopes: String,
    /// Groups claim (empty: `groups`).
    pub groups_claim: String,
    /// Admin groups, separated by commas, spaces or lines.
    pub admin_groups: String,
    /// Security reviewer groups.
    pub reviewer_groups: String,
    /// Developer groups.
    pub developer_groups: String,
    /// Take emails it does not mark verified.
    pub trust_email: bool,
    /// `amr` values that prove a second factor (space- or comma-separated).
    pub second_factor_amr: String,
    /// `acr` values that prove a second factor (space- or comma-separated).
    pub second_factor_acr: String,
    /// For a realm's provider: the group mapping, one `GROUP -> KIND:NAME` per line.
    pub group_mapping: String,
}

/// A console account's identity at a sign-in provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserIdentity {
    /// The provider.
    pub provider_id: SsoProviderId,
    /// Its `sub`.
    pub subject: String,
    /// The console account.
    pub user_id: UserId,
    /// When the account was first signed in through it.
    pub created_at: UnixTime,
}

/// What a verified sign-in at a provider says about the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SsoIdentity {
    /// `sub`.
    pub subject: String,
    /// `email`, if any.
    pub email: Option<String>,
    /// `email_verified`.
    pub email_verified: Option<bool>,
    /// `name`, if any.
    pub name: Option<String>,
    /// The values of the groups claim (a string or an array of strings).
    pub groups: Vec<String>,
    /// How the person authenticated (`amr`, RFC 8176 values), from the ID token.
    pub amr: Vec<String>,
    /// The authentication context class (`acr`), from the ID token.
    pub acr: Option<String>,
}

/// A sign-in that went to a provider and has not come back yet, kept in the browser's
/// (server-side) session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingSsoSignIn {
    /// The provider.
    pub provider_id: String,
    /// `state` sent to the provider.
    pub state: String,
    /// `nonce` sent to the provider.
    pub nonce: String,
    /// The PKCE verifier.
    pub pkce_verifier: String,
    /// Where to go afterwards (already checked to be a local path).
    pub next: String,
    /// When the sign-in started.
    pub started_at: UnixTime,
}

/// What a console session keeps of the provider sign-in that started it, to sign out at the
/// provider too.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SsoSession {
    /// The provider.
    pub provider_id: String,
    /// The ID token it issued (the `id_token_hint` of the sign-out).
    pub id_token: String,
    /// The provider proved a second factor (its `amr` / `acr` met the provider's settings).
    #[serde(default)]
    pub second_factor: bool,
}

impl std::fmt::Debug for SsoSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsoSession")
            .field("provider_id", &self.provider_id)
            .field("second_factor", &self.second_factor)
            .finish_non_exhaustive()
    }
}

/// Why a provider sign-in did not sign anyone in: each is a page the person reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SsoRefusal {
    /// The provider signed the person in, but none of their groups maps to a role.
    NoRole,
    /// The provider gave no usable email for a new account.
    NoEmail,
    /// A console account that did not come from this provider already has the email.
    EmailTaken,
    /// The account is disabled in Portcullis.
    Disabled,
    /// The sign-in expired, was started elsewhere, or came back with wrong state.
    Expired,
    /// The account's role requires a second factor and the provider's ID token did not show
    /// one of the `amr` / `acr` values the provider is set up to prove it with.
    NoSecondFactor,
    /// Too many failed sign-ins through providers from this address.
    Throttled,
    /// The provider refused or failed (its `error`, or a failed check of its answer).
    Provider(String),
}

impl SsoRefusal {
    /// The short code carried to the sign-in page.
    pub fn code(&self) -> &'static str {
        match self {
            SsoRefusal::NoRole => "sso_no_role",
            SsoRefusal::NoEmail => "sso_no_email",
            SsoRefusal::EmailTaken => "sso_email_taken",
            SsoRefusal::Disabled => "invalid",
            SsoRefusal::Expired => "sso_expired",
            SsoRefusal::NoSecondFactor => "sso_second_factor",
            SsoRefusal::Throttled => "throttled",
            SsoRefusal::Provider(_) => "sso_failed",
        }
    }
}

/// What a provider's callback carries.
#[derive(Debug, Clone, Default)]
pub struct SsoCallback {
    /// `code`.
    pub code: Option<String>,
    /// `state`.
    pub state: Option<String>,
    /// `iss` (RFC 9207), when the provider sends it.
    pub iss: Option<String>,
    /// `error`, when the provider refused.
    pub error: Option<String>,
}

impl SsoCallback {
    /// The code of a callback from the provider with `issuer`, or why it cannot be used (for
    /// the audit row): the provider's `error`, another issuer named in `iss` (RFC 9207: a
    /// mix-up attempt or a misconfiguration), or no usable code.
    ///
    /// # Errors
    /// The reason, fit for the audit log.
    pub fn code_from(&self, issuer: &str) -> Result<&str, String> {
        if let Some(error) = &self.error {
            // An error code is ASCII without quotes or backslashes (RFC 6749 §4.1.2.1).
            let error: String = error
                .chars()
                .take(100)
                .filter(|c| c.is_ascii_graphic() && !matches!(c, '"' | '\\'))
                .collect();
            return Err(format!("the provider answered {error}"));
        }
        if self.iss.as_deref().is_some_and(|iss| iss != issuer) {
            return Err(
                "the answer names another issuer (iss): a mix-up attempt or a misconfiguration"
                    .into(),
            );
        }
        self.code
            .as_deref()
            .filter(|c| !c.is_empty() && c.len() <= 2048)
            .ok_or_else(|| "the provider answered without a code".into())
    }
}

/// What "Test connection" found at the provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovery {
    /// `issuer` of the discovery document.
    pub issuer: String,
    /// `authorization_endpoint`.
    pub authorization_endpoint: String,
    /// `token_endpoint`.
    pub token_endpoint: Option<String>,
    /// `userinfo_endpoint`.
    pub userinfo_endpoint: Option<String>,
    /// `end_session_endpoint` (RP-initiated logout).
    pub end_session_endpoint: Option<String>,
    /// How many signing keys its JWKS holds.
    pub keys: usize,
    /// `scopes_supported`.
    pub scopes: Vec<String>,
    /// `claims_supported`.
    pub claims: Vec<String>,
    /// `id_token_signing_alg_values_supported`.
    pub algorithms: Vec<String>,
}

/// What a realm provider's group gives its people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MappingKind {
    /// A realm role (resources may require it of the people who use them).
    Role,
    /// A registry unit.
    Unit,
    /// A registry ring.
    Ring,
}

impl MappingKind {
    /// The word used in the mapping text.
    pub fn as_str(self) -> &'static str {
        match self {
            MappingKind::Role => "role",
            MappingKind::Unit => "unit",
            MappingKind::Ring => "ring",
        }
    }
}

/// One rule of a realm provider's group mapping: people in `group` get `kind` `target`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GroupRule {
    /// The upstream group (exact; `*` is everyone the provider signs in).
    pub group: String,
    /// Role, unit or ring.
    pub kind: MappingKind,
    /// The role's name, or the unit's or ring's id.
    pub target: String,
}

/// Most rules one group mapping holds.
pub const MAX_GROUP_RULES: usize = 200;

/// What a group mapping gives (or manages): roles, units and rings, each sorted and distinct.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mapped {
    /// Role names.
    pub roles: Vec<String>,
    /// Unit ids.
    pub units: Vec<String>,
    /// Ring ids.
    pub rings: Vec<String>,
}

impl Mapped {
    fn push(&mut self, rule: &GroupRule) {
        let list = match rule.kind {
            MappingKind::Role => &mut self.roles,
            MappingKind::Unit => &mut self.units,
            MappingKind::Ring => &mut self.rings,
        };
        if let Err(at) = list.binary_search(&rule.target) {
            list.insert(at, rule.target.clone());
        }
    }

    /// What the rules give someone in `groups`.
    pub fn given(rules: &[GroupRule], groups: &[String]) -> Self {
        let mut out = Self::default();
        for r in rules
            .iter()
            .filter(|r| r.group == ANYONE || groups.contains(&r.group))
        {
            out.push(r);
        }
        out
    }

    /// Every role, unit and ring the rules name: the ones the provider manages (a person gets
    /// them while a group maps to them and loses them when none does).
    pub fn managed(rules: &[GroupRule]) -> Self {
        let mut out = Self::default();
        for r in rules {
            out.push(r);
        }
        out
    }
}

/// Parses a group mapping typed as lines of `GROUP -> KIND:NAME` (KIND is `role`, `unit` or
/// `ring`; blank lines and lines starting with `#` are skipped).
///
/// # Errors
/// A message naming the line, fit for the form.
pub fn parse_group_mapping(s: &str) -> Result<Vec<GroupRule>, String> {
    let mut out: Vec<GroupRule> = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    for (n, line) in s.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match parse_rule(line) {
            Ok(rule) if !out.contains(&rule) => out.push(rule),
            Ok(_) => {}
            Err(e) => errors.push(format!("Line {}: {e}", n + 1)),
        }
    }
    if !errors.is_empty() {
        let more = errors.len().saturating_sub(5);
        errors.truncate(5);
        if more > 0 {
            errors.push(format!("… and {more} more."));
        }
        return Err(errors.join(" "));
    }
    if out.len() > MAX_GROUP_RULES {
        return Err(format!("At most {MAX_GROUP_RULES} rules."));
    }
    let roles = Mapped::managed(&out).roles.len();
    if roles > crate::scope::MAX_SCOPES / 2 {
        return Err(format!(
            "At most {} distinct roles (this names {roles}).",
            crate::scope::MAX_SCOPES / 2
        ));
    }
    Ok(out)
}

/// One `GROUP -> KIND:NAME` rule.
fn parse_rule(line: &str) -> Result<GroupRule, String> {
    let Some((group, target)) = line.rsplit_once("->") else {
        return Err(if line.contains("=>") {
            "write -> (a hyphen and >), not =>.".to_owned()
        } else {
            "write GROUP -> role:NAME, GROUP -> unit:ID or GROUP -> ring:ID.".to_owned()
        });
    };
    let group = group.trim();
    if group.is_empty()
        || group.chars().count() > MAX_VALUE_LEN
        || group.chars().any(char::is_control)
    {
        return Err(format!(
            "the group must be 1 to {MAX_VALUE_LEN} characters, without control characters."
        ));
    }
    let Some((kind, name)) = target.trim().split_once(':') else {
        return Err("after -> write role:NAME, unit:ID or ring:ID.".to_owned());
    };
    let kind = match kind.trim() {
        "role" => MappingKind::Role,
        "unit" => MappingKind::Unit,
        "ring" => MappingKind::Ring,
        other => return Err(format!("{other:.40} is not role, unit or ring.")),
    };
    let name = name.trim();
    let valid = match kind {
        MappingKind::Role => {
            !name.is_empty()
                && !name.contains(char::is_whitespace)
                && crate::scope::ScopeSet::parse(name).is_ok()
        }
        MappingKind::Unit | MappingKind::Ring => {
            portcullis_manifest::names::check_group(name).is_ok()
        }
    };
    if !valid {
        return Err(match kind {
            MappingKind::Role => {
                "a role is one word of visible ASCII characters, without quotes or backslashes."
                    .to_owned()
            }
            MappingKind::Unit if name.contains('/') => format!(
                "name the unit by its id, the last part of its path (unit:{}).",
                name.rsplit('/').next().unwrap_or_default()
            ),
            _ => format!(
                "a {} id is lowercase letters, digits and single hyphens (at most 63).",
                kind.as_str()
            ),
        });
    }
    Ok(GroupRule {
        group: group.to_owned(),
        kind,
        target: name.to_owned(),
    })
}

/// A group mapping as typed: one `GROUP -> KIND:NAME` per line.
pub fn group_mapping_text(rules: &[GroupRule]) -> String {
    rules
        .iter()
        .map(|r| format!("{} -> {}:{}", r.group, r.kind.as_str(), r.target))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Most `amr` or `acr` values a provider proves a second factor with.
pub const MAX_AUTH_VALUES: usize = 10;

/// Parses `amr` or `acr` values typed as commas, spaces or lines: distinct, each visible ASCII
/// without quotes or backslashes, at most 100 characters.
///
/// # Errors
/// A message fit for the form.
pub fn parse_auth_values(s: &str, what: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for v in s
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|v| !v.is_empty())
    {
        if v.len() > 100
            || !v
                .bytes()
                .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\')
        {
            return Err(format!(
                "{what}: each value must be at most 100 visible ASCII characters, without quotes or backslashes."
            ));
        }
        if !out.iter().any(|o| o == v) {
            out.push(v.to_owned());
        }
    }
    if out.len() > MAX_AUTH_VALUES {
        return Err(format!("{what}: at most {MAX_AUTH_VALUES} values."));
    }
    Ok(out)
}

/// Splits a list typed as commas, spaces or lines into distinct values.
///
/// # Errors
/// A message fit for the form.
pub fn parse_values(s: &str, what: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for v in s
        .split([',', '\n', '\r'])
        .map(str::trim)
        .filter(|v| !v.is_empty())
    {
        if v.chars().count() > MAX_VALUE_LEN || v.chars().any(char::is_control) {
            return Err(format!(
                "{what}: each value must be at most {MAX_VALUE_LEN} characters, without control characters."
            ));
        }
        if !out.iter().any(|o| o == v) {
            out.push(v.to_owned());
        }
    }
    if out.len() > MAX_RULE_VALUES {
        return Err(format!("{what}: at most {MAX_RULE_VALUES} values."));
    }
    Ok(out)
}

/// Parses the scopes to ask for: `openid` always comes first.
///
/// # Errors
/// A message fit for the form.
pub fn parse_scopes(s: &str) -> Result<Vec<String>, String> {
    let s = if s.trim().is_empty() {
        DEFAULT_SCOPES
    } else {
        s
    };
    let mut out = vec!["openid".to_owned()];
    for scope in s.split_whitespace() {
        if scope.len() > 100
            || !scope
                .bytes()
                .all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b))
        {
            return Err(format!("{scope:.60} is not a valid scope (RFC 6749 §3.3)."));
        }
        if !out.iter().any(|o| o == scope) {
            out.push(scope.to_owned());
        }
    }
    if out.len() > 20 {
        return Err("Ask for at most 20 scopes.".into());
    }
    Ok(out)
}

/// Parses a claim name (`groups`, `roles`, `department`, …).
///
/// # Errors
/// A message fit for the form.
pub fn parse_claim_name(s: &str) -> Result<String, String> {
    let s = s.trim();
    let s = if s.is_empty() {
        DEFAULT_GROUPS_CLAIM
    } else {
        s
    };
    if s.len() > 100 || s.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err("The groups claim must be a claim name, like groups or roles.".into());
    }
    Ok(s.to_owned())
}

/// Parses the client id Portcullis has at the provider.
///
/// # Errors
/// A message fit for the form.
pub fn parse_sso_client_id(s: &str) -> Result<String, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("The client ID is required: the one the provider gave Portcullis.".into());
    }
    if s.len() > MAX_VALUE_LEN || s.chars().any(char::is_control) {
        return Err(format!(
            "The client ID must be at most {MAX_VALUE_LEN} characters, without control characters."
        ));
    }
    Ok(s.to_owned())
}

/// The groups in a claim's value: a string (one group, like a `department`) or an array of
/// strings; anything else is no groups.
pub fn groups_of(value: Option<&serde_json::Value>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: &str| {
        if !s.is_empty()
            && s.len() <= MAX_VALUE_LEN
            && out.len() < 1000
            && !out.iter().any(|o| o == s)
        {
            out.push(s.to_owned());
        }
    };
    match value {
        Some(serde_json::Value::String(s)) => push(s),
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .filter_map(serde_json::Value::as_str)
            .for_each(&mut push),
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_most_privileged_matching_rule_wins() {
        let rules = RoleRules {
            admin: strings(&["platform-admins"]),
            security_reviewer: strings(&["secops"]),
            developer: strings(&["engineering", "contractors"]),
        };
        assert_eq!(
            rules.role_for(&strings(&["engineering"])),
            Some(Role::Developer)
        );
        assert_eq!(
            rules.role_for(&strings(&["engineering", "secops"])),
            Some(Role::SecurityReviewer)
        );
        assert_eq!(
            rules.role_for(&strings(&["secops", "platform-admins"])),
            Some(Role::Admin)
        );
        assert_eq!(rules.role_for(&strings(&["sales"])), None);
        assert_eq!(rules.role_for(&[]), None);
        // Matching is exact: no case folding, no prefixes.
        assert_eq!(
            rules.role_for(&strings(&["Platform-Admins", "platform"])),
            None
        );
        let anyone = RoleRules {
            developer: strings(&["*"]),
            ..RoleRules::default()
        };
        assert_eq!(anyone.role_for(&[]), Some(Role::Developer));
    }

    #[test]
    fn groups_come_from_strings_and_arrays() {
        use serde_json::json;
        assert_eq!(
            groups_of(Some(&json!(["a", "b", "a", 3]))),
            strings(&["a", "b"])
        );
        assert_eq!(
            groups_of(Some(&json!("Platform Engineering"))),
            strings(&["Platform Engineering"])
        );
        // Exactly as sent: a padded value is another group.
        assert_eq!(groups_of(Some(&json!([" admins"]))), strings(&[" admins"]));
        assert!(groups_of(Some(&json!({"a": 1}))).is_empty());
        assert!(groups_of(None).is_empty());
    }

    #[test]
    fn group_mappings_parse_line_by_line_and_give_what_they_name() {
        let rules = parse_group_mapping(
            "# the directory\nPlatform Engineering -> unit:platform\n\nengineering->ring:canary\n* -> role:mcp-user\nPlatform Engineering -> unit:platform\n",
        )
        .unwrap();
        assert_eq!(rules.len(), 3);
        assert_eq!(
            group_mapping_text(&rules),
            "Platform Engineering -> unit:platform\nengineering -> ring:canary\n* -> role:mcp-user"
        );
        let given = Mapped::given(&rules, &strings(&["Platform Engineering"]));
        assert_eq!(given.units, strings(&["platform"]));
        assert!(given.rings.is_empty());
        assert_eq!(given.roles, strings(&["mcp-user"]));
        let managed = Mapped::managed(&rules);
        assert_eq!(managed.rings, strings(&["canary"]));
        for (bad, says) in [
            ("engineering", "Line 1"),
            ("a -> team:x", "not role, unit or ring"),
            ("a -> unit:Platform", "lowercase"),
            ("a -> role:two words", "one word"),
            ("-> unit:x", "the group"),
        ] {
            let e = parse_group_mapping(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        // Every bad line is named at once, with what to write instead.
        let e =
            parse_group_mapping("a => unit:x\nok -> ring:x\nb -> unit:eng/platform").unwrap_err();
        assert!(
            e.contains("Line 1: write -> (a hyphen and >), not =>."),
            "{e}"
        );
        assert!(
            e.contains(
                "Line 3: name the unit by its id, the last part of its path (unit:platform)."
            ),
            "{e}"
        );
    }

    #[test]
    fn a_callback_gives_its_code_only_from_the_right_issuer_without_an_error() {
        let cb = |code: Option<&str>, iss: Option<&str>, error: Option<&str>| SsoCallback {
            code: code.map(str::to_owned),
            state: Some("s".into()),
            iss: iss.map(str::to_owned),
            error: error.map(str::to_owned),
        };
        let idp = "https://idp.example.com";
        assert_eq!(cb(Some("c"), None, None).code_from(idp), Ok("c"));
        assert_eq!(cb(Some("c"), Some(idp), None).code_from(idp), Ok("c"));
        assert!(
            cb(Some("c"), Some("https://evil.example"), None)
                .code_from(idp)
                .unwrap_err()
                .contains("another issuer")
        );
        let e = cb(None, None, Some("access_denied\"\n<x>"))
            .code_from(idp)
            .unwrap_err();
        assert_eq!(e, "the provider answered access_denied<x>");
        assert!(
            cb(Some(""), None, None)
                .code_from(idp)
                .unwrap_err()
                .contains("without a code")
        );
        assert!(
            cb(Some(&"c".repeat(2049)), None, None)
                .code_from(idp)
                .is_err()
        );
    }

    #[test]
    fn scopes_always_start_with_openid() {
        assert_eq!(
            parse_scopes("").unwrap(),
            strings(&["openid", "email", "profile"])
        );
        assert_eq!(
            parse_scopes("email groups openid").unwrap(),
            strings(&["openid", "email", "groups"])
        );
        assert!(parse_scopes("a\"b").is_err());
    }

    #[test]
    fn values_are_trimmed_and_distinct() {
        assert_eq!(
            parse_values(" a, b\nc ,a ", "Admin groups").unwrap(),
            strings(&["a", "b", "c"])
        );
        assert!(parse_values("a\u{7}", "x").is_err());
    }
}
