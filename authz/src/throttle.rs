//! Failure throttling for console sign-in and client authentication (fixed windows, in memory).
//!
//! Keys are parsed, bounded values ([`Key`]), never raw request text, and the maps holding them
//! are bounded: when full, expired windows go first, then the oldest tenth.
//!
//! - **Console sign-in** is refused without checking the password when the account has failed
//!   too often *from this source* (account + source, so an attacker elsewhere cannot lock the
//!   account's owner out) or the source has failed too often across accounts (password spraying).
//!   The attempt is counted *before* the password is checked and uncounted on success, so a
//!   burst of concurrent attempts cannot slip past the limit while the hashes are computed.
//! - **Client authentication** checks the credential first: a correct credential is never
//!   refused (secrets carry 256 bits, so brute force is not the threat). Failures are counted per
//!   (realm, client) and per source; only *failed* attempts beyond a limit are answered with
//!   "try later" instead of `invalid_client`.
//!
//! Sources are client IP addresses; IPv6 addresses count per /64, since one host usually holds a
//! whole /64, and sign-in failures and registrations also per /48, so a site with a whole /48
//! does not get 65,536 budgets. NAT64 addresses count by the IPv4 address they carry. Known quirk: counters live in
//! the process, so several instances each allow the limit.
use crate::bounded::{BoundedMap, Rank};
use crate::clock::UnixTime;
use crate::ids::RealmId;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::Mutex;

/// Failed sign-ins allowed per account from one source within a window.
pub const MAX_FAILURES_PER_ACCOUNT_SOURCE: u32 = 5;
/// Failed sign-ins allowed per source (across accounts) within a window.
pub const MAX_LOGIN_FAILURES_PER_SOURCE: u32 = 20;
/// Failed sign-ins allowed per IPv6 /48 (a site's allocation, 65,536 /64s) within a window.
pub const MAX_LOGIN_FAILURES_PER_SITE: u32 = 100;
/// Failed authentications of one OAuth client allowed within a window before failures are
/// answered with "try later".
pub const MAX_CLIENT_FAILURES: u32 = 10;
/// Failed client authentications allowed per source within a window.
pub const MAX_CLIENT_FAILURES_PER_SOURCE: u32 = 20;
/// Client registrations allowed per source within a window (every attempt counts), unless the
/// realm sets its own budget ([`crate::realms::DEFAULT_REGISTRATIONS_PER_SOURCE`]).
pub const MAX_REGISTRATIONS_PER_SOURCE: u32 = 10;
/// Client registrations allowed per IPv6 /48 within a window.
pub const MAX_REGISTRATIONS_PER_SITE: u32 = 100;
/// MCP server checks (each a handful of outbound requests) allowed per console account within a
/// window.
pub const MAX_MCP_CHECKS_PER_ACCOUNT: u32 = 30;
/// Resources submitted or withdrawn (each a locked, audited write) per developer within a
/// window.
pub const MAX_SUBMISSION_CHANGES_PER_ACCOUNT: u32 = 30;
/// Wrong user codes (RFC 8628) allowed per source within a window.
pub const MAX_USER_CODE_FAILURES_PER_SOURCE: u32 = 10;
/// Wrong user codes allowed in one realm from everywhere together within a window: with at
/// most a few thousand live codes among 20^8, a distributed guesser stays far below one hit.
pub const MAX_USER_CODE_FAILURES: u32 = 1_000;
/// Device authorization requests per source within a window.
pub const MAX_DEVICE_REQUESTS_PER_SOURCE: u32 = 60;
/// Drift reports per person within a window, all their devices together (each device reports
/// at most once a minute on its own).
pub const MAX_DRIFT_REPORTS_PER_PERSON: u32 = 30;
/// Wrong second-factor codes allowed per console account (from anywhere) within a window: with
/// three codes valid at a time among a million, a guesser needs about a year for even odds.
pub const MAX_SECOND_FACTOR_FAILURES: u32 = 10;
/// Window length in seconds.
pub const WINDOW_SECS: i64 = 15 * 60;
/// Most counters kept per throttle.
pub const MAX_ENTRIES: usize = 100_000;

/// A request's source for throttling: an IPv4 address or an IPv6 /64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// An IPv4 address (also for IPv4-mapped IPv6).
    V4(std::net::Ipv4Addr),
    /// The /64 an IPv6 address belongs to.
    V6Prefix([u16; 4]),
    /// No address known (CLI, tests).
    Unknown,
}

impl Source {
    /// The throttling source of a client address.
    pub fn of(ip: Option<IpAddr>) -> Self {
        match ip {
            Some(IpAddr::V4(v4)) => Source::V4(v4),
            Some(IpAddr::V6(v6)) => {
                let s = v6.segments();
                match v6.to_ipv4_mapped() {
                    Some(v4) => Source::V4(v4),
                    // NAT64 (RFC 6052) carries a whole IPv4 internet in one /96: judge each
                    // client by its IPv4 address, not the gateway's /64.
                    None if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] => {
                        Source::V4(std::net::Ipv4Addr::new(
                            (s[6] >> 8) as u8,
                            s[6] as u8,
                            (s[7] >> 8) as u8,
                            s[7] as u8,
                        ))
                    }
                    None => Source::V6Prefix([s[0], s[1], s[2], s[3]]),
                }
            }
            None => Source::Unknown,
        }
    }

    /// The /48 an IPv6 source belongs to (`None` for IPv4 and unknown sources).
    fn site(self) -> Option<[u16; 3]> {
        match self {
            Source::V6Prefix([a, b, c, _]) => Some([a, b, c]),
            _ => None,
        }
    }

    /// The source as an address (the /64's first address for IPv6), for logs.
    pub fn to_ip(self) -> Option<IpAddr> {
        match self {
            Source::V4(v4) => Some(IpAddr::V4(v4)),
            Source::V6Prefix([a, b, c, d]) => {
                Some(IpAddr::V6(Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0)))
            }
            Source::Unknown => None,
        }
    }
}

/// What a counter counts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    /// Sign-ins to one account (a parsed, lower-cased email) from one source.
    AccountSource(String, Source),
    /// Sign-ins from one source.
    LoginSource(Source),
    /// Sign-ins from one IPv6 /48.
    LoginSite([u16; 3]),
    /// Authentications of one client (a parsed `client_id`).
    Client(RealmId, String),
    /// Client authentications from one source.
    ClientSource(Source),
    /// Registrations (RFC 7591) in one realm from one source.
    Registration(RealmId, Source),
    /// Registrations in one realm from one IPv6 /48.
    RegistrationSite(RealmId, [u16; 3]),
    /// Registrations in one realm from one of its trusted networks.
    RegistrationNetwork(RealmId, crate::net::Cidr),
    /// MCP server checks by one console account (its user id).
    McpCheck(String),
    /// Submissions and withdrawals by one console account (its user id).
    SubmissionChange(String),
    /// User codes tried from one source.
    UserCodeSource(Source),
    /// User codes tried in one realm from anywhere.
    UserCodeAll(RealmId),
    /// Device authorization requests from one source.
    DeviceRequest(Source),
    DriftReport(RealmId, String),
    /// Second-factor codes tried for one console account (its user id), from anywhere.
    SecondFactor(String),
}

impl Key {
    /// What the key throttles, as the `kind` label of `portcullis_throttled_total`.
    fn kind(&self) -> &'static str {
        match self {
            Key::AccountSource(..)
            | Key::LoginSource(_)
            | Key::LoginSite(_)
            | Key::SecondFactor(_) => "sign_in",
            Key::Client(..) | Key::ClientSource(_) => "client_authentication",
            Key::Registration(..) | Key::RegistrationSite(..) | Key::RegistrationNetwork(..) => {
                "registration"
            }
            Key::McpCheck(_) => "mcp_check",
            Key::SubmissionChange(_) => "submission",
            Key::UserCodeSource(_) | Key::UserCodeAll(_) => "user_code",
            Key::DeviceRequest(_) => "device_authorization",
            Key::DriftReport(..) => "drift_report",
        }
    }
}

/// Counts one refusal in `portcullis_throttled_total{kind}`.
fn count_refusal(kind: &'static str) {
    metrics::counter!("portcullis_throttled_total", "kind" => kind).increment(1);
}

/// Failure counters in fixed windows.
#[derive(Debug)]
pub(crate) struct Throttle {
    counters: Mutex<BoundedMap<Key, (u32, UnixTime)>>,
}

impl Default for Throttle {
    fn default() -> Self {
        Self {
            counters: Mutex::new(BoundedMap::new(MAX_ENTRIES)),
        }
    }
}

/// A sign-in attempt counted in advance; [`Throttle::succeeded`] uncounts it.
#[derive(Debug)]
#[must_use = "an attempt is a failure unless marked as succeeded"]
pub(crate) struct Attempt {
    /// The account + source key first, then the source-wide ones, with their windows' starts.
    counted: Vec<(Key, UnixTime)>,
}

/// Counters at the smallest limit are worth keeping when room is needed: they are the locks.
fn rank(entry: &(u32, UnixTime), now: UnixTime) -> Rank {
    let (n, start) = *entry;
    if now >= start + WINDOW_SECS {
        Rank::Dead
    } else if n >= MAX_FAILURES_PER_ACCOUNT_SOURCE {
        Rank::Keep
    } else {
        Rank::Spare
    }
}

impl Throttle {
    fn live(entry: Option<&(u32, UnixTime)>, now: UnixTime) -> u32 {
        entry
            .filter(|(_, start)| now < start + WINDOW_SECS)
            .map_or(0, |(n, _)| *n)
    }

    fn retry_after(entry: Option<&(u32, UnixTime)>, now: UnixTime) -> u64 {
        entry.map_or(1, |(_, start)| {
            u64::try_from(start + WINDOW_SECS - now).unwrap_or(1).max(1)
        })
    }

    /// Counts one failure of `key`; returns the count in the current window.
    fn bump(
        map: &mut BoundedMap<Key, (u32, UnixTime)>,
        key: &Key,
        now: UnixTime,
    ) -> (u32, UnixTime) {
        let entry = match map.get(key) {
            Some(&(n, start)) if now < start + WINDOW_SECS => (n + 1, start),
            _ => (1, now),
        };
        map.insert(key.clone(), entry, now, |e| rank(e, now));
        entry
    }

    /// Begins a console sign-in: refused (with the seconds to wait) when the account has failed
    /// too often from this source, the source too often overall, or (IPv6) its /48 too often;
    /// otherwise counted as a failure until [`Throttle::succeeded`] says otherwise.
    pub(crate) fn begin_login(
        &self,
        account: &str,
        source: Source,
        now: UnixTime,
    ) -> Result<Attempt, u64> {
        let mut limits = vec![
            (
                Key::AccountSource(account.to_owned(), source),
                MAX_FAILURES_PER_ACCOUNT_SOURCE,
            ),
            (Key::LoginSource(source), MAX_LOGIN_FAILURES_PER_SOURCE),
        ];
        if let Some(site) = source.site() {
            limits.push((Key::LoginSite(site), MAX_LOGIN_FAILURES_PER_SITE));
        }
        let starts = self.count_all(&limits, now)?;
        let counted = limits.into_iter().map(|(k, _)| k).zip(starts).collect();
        Ok(Attempt { counted })
    }

    /// Begins a second-factor check for a console account (its user id): refused when the
    /// account has had too many wrong codes from anywhere, or the source too many failed
    /// sign-ins; otherwise counted as a failure until [`Throttle::succeeded`].
    pub(crate) fn begin_second_factor(
        &self,
        user_id: &str,
        source: Source,
        now: UnixTime,
    ) -> Result<Attempt, u64> {
        let mut limits = vec![
            (
                Key::SecondFactor(user_id.to_owned()),
                MAX_SECOND_FACTOR_FAILURES,
            ),
            (Key::LoginSource(source), MAX_LOGIN_FAILURES_PER_SOURCE),
        ];
        if let Some(site) = source.site() {
            limits.push((Key::LoginSite(site), MAX_LOGIN_FAILURES_PER_SITE));
        }
        let starts = self.count_all(&limits, now)?;
        let counted = limits.into_iter().map(|(k, _)| k).zip(starts).collect();
        Ok(Attempt { counted })
    }

    /// Uncounts a sign-in attempt that succeeded, and forgets the account's failures from that
    /// source.
    pub(crate) fn succeeded(&self, attempt: Attempt) {
        let account = attempt.counted.first().map(|(k, _)| k.clone());
        self.undo(attempt);
        if let Some(account) = account {
            self.counters
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&account);
        }
    }

    /// Uncounts an attempt that never reached its check (the hasher was busy).
    pub(crate) fn undo(&self, attempt: Attempt) {
        let mut map = self.counters.lock().unwrap_or_else(|p| p.into_inner());
        for (key, start) in attempt.counted {
            if let Some((n, s)) = map.get(&key).copied()
                && s == start
            {
                if n <= 1 {
                    map.remove(&key);
                } else {
                    map.insert(key, (n - 1, s), s, |_| Rank::Spare);
                }
            }
        }
    }

    /// Counts a registration attempt in `realm` from `source`; the seconds to wait when it is
    /// beyond the budget. A source in one of the realm's trusted networks counts against that
    /// network's one, larger budget; any other against its own (and, IPv6, its /48's).
    pub(crate) fn registration(
        &self,
        realm: &crate::realms::Realm,
        source: Source,
        now: UnixTime,
    ) -> Result<(), u64> {
        let clamp = |n: i64| u32::try_from(n.max(1)).unwrap_or(u32::MAX);
        let network = source.to_ip().and_then(|ip| {
            // An IPv6 source is known by its /64: a stored range narrower than that (written
            // before such ranges were refused) would match the whole /64, so it matches nothing.
            realm
                .trusted_networks
                .iter()
                .filter(|n| n.is_ipv4() || n.prefix() <= 64)
                .find(|n| n.contains(ip))
                .copied()
        });
        let limits = match network {
            Some(n) => vec![(
                Key::RegistrationNetwork(realm.id.clone(), n),
                clamp(realm.registrations_per_trusted_network),
            )],
            None => {
                let mut limits = vec![(
                    Key::Registration(realm.id.clone(), source),
                    clamp(realm.registrations_per_source),
                )];
                if let Some(site) = source.site() {
                    limits.push((
                        Key::RegistrationSite(realm.id.clone(), site),
                        MAX_REGISTRATIONS_PER_SITE.max(clamp(realm.registrations_per_source)),
                    ));
                }
                limits
            }
        };
        self.count_all(&limits, now).map(drop)
    }

    /// Begins a user-code lookup on the device verification page: refused (with the seconds to
    /// wait) when the source, or everyone together, typed too many wrong codes; otherwise
    /// counted as a failure until [`Throttle::undo`] says it found its code.
    pub(crate) fn begin_user_code(
        &self,
        realm: &RealmId,
        source: Source,
        now: UnixTime,
    ) -> Result<Attempt, u64> {
        let limits = [
            (
                Key::UserCodeSource(source),
                MAX_USER_CODE_FAILURES_PER_SOURCE,
            ),
            (Key::UserCodeAll(realm.clone()), MAX_USER_CODE_FAILURES),
        ];
        let starts = self.count_all(&limits, now)?;
        let counted = limits.into_iter().map(|(k, _)| k).zip(starts).collect();
        Ok(Attempt { counted })
    }

    /// Counts a device authorization request from `source`; the seconds to wait when it is
    /// beyond the source's budget.
    pub(crate) fn device_request(&self, source: Source, now: UnixTime) -> Result<(), u64> {
        self.count_within(
            Key::DeviceRequest(source),
            MAX_DEVICE_REQUESTS_PER_SOURCE,
            now,
        )
    }

    /// Counts a drift report of person `subject`; the seconds to wait when it is beyond their
    /// budget.
    pub(crate) fn drift_report(
        &self,
        realm: &RealmId,
        subject: &str,
        now: UnixTime,
    ) -> Result<(), u64> {
        self.count_within(
            Key::DriftReport(realm.clone(), subject.to_owned()),
            MAX_DRIFT_REPORTS_PER_PERSON,
            now,
        )
    }

    /// Counts an MCP server check by console account `user`; the seconds to wait when it is
    /// beyond the account's limit.
    pub(crate) fn mcp_check(&self, user: &str, now: UnixTime) -> Result<(), u64> {
        self.count_within(
            Key::McpCheck(user.to_owned()),
            MAX_MCP_CHECKS_PER_ACCOUNT,
            now,
        )
    }

    /// Counts a submission or withdrawal by console account `user`; the seconds to wait when
    /// it is beyond the account's limit.
    pub(crate) fn submission_change(&self, user: &str, now: UnixTime) -> Result<(), u64> {
        self.count_within(
            Key::SubmissionChange(user.to_owned()),
            MAX_SUBMISSION_CHANGES_PER_ACCOUNT,
            now,
        )
    }

    fn count_within(&self, key: Key, max: u32, now: UnixTime) -> Result<(), u64> {
        self.count_all(&[(key, max)], now).map(drop)
    }

    /// The seconds to wait when any of `limits` is reached (nothing counted then); otherwise
    /// counts one on each, returning their windows' starts.
    fn count_all(&self, limits: &[(Key, u32)], now: UnixTime) -> Result<Vec<UnixTime>, u64> {
        let mut map = self.counters.lock().unwrap_or_else(|p| p.into_inner());
        let over = limits
            .iter()
            .filter(|(k, max)| Self::live(map.get(k), now) >= *max)
            .map(|(k, _)| Self::retry_after(map.get(k), now))
            .max();
        if let Some(wait) = over {
            if let Some((key, _)) = limits.first() {
                count_refusal(key.kind());
            }
            return Err(wait);
        }
        Ok(limits
            .iter()
            .map(|(k, _)| Self::bump(&mut map, k, now).1)
            .collect())
    }

    /// Records a failed client authentication. Returns the seconds to wait when this failure is
    /// beyond the client's or the source's limit (the caller then answers "try later").
    pub(crate) fn client_failed(
        &self,
        realm: &RealmId,
        client_id: &str,
        source: Source,
        now: UnixTime,
    ) -> Option<u64> {
        let mut map = self.counters.lock().unwrap_or_else(|p| p.into_inner());
        let client = Key::Client(realm.clone(), client_id.to_owned());
        let from = Key::ClientSource(source);
        let (n_client, start_client) = Self::bump(&mut map, &client, now);
        let (n_source, start_source) = Self::bump(&mut map, &from, now);
        let wait = |start: UnixTime| u64::try_from(start + WINDOW_SECS - now).unwrap_or(1).max(1);
        let refused = [
            (n_client > MAX_CLIENT_FAILURES).then(|| wait(start_client)),
            (n_source > MAX_CLIENT_FAILURES_PER_SOURCE).then(|| wait(start_source)),
        ]
        .into_iter()
        .flatten()
        .max();
        if refused.is_some() {
            count_refusal(client.kind());
        }
        refused
    }

    /// Records a failure from `source` alone (a request naming a public client, which anyone
    /// can name). Returns the seconds to wait when it is beyond the source's limit.
    pub(crate) fn source_failed(&self, source: Source, now: UnixTime) -> Option<u64> {
        let mut map = self.counters.lock().unwrap_or_else(|p| p.into_inner());
        let from = Key::ClientSource(source);
        let (n, start) = Self::bump(&mut map, &from, now);
        (n > MAX_CLIENT_FAILURES_PER_SOURCE).then(|| {
            count_refusal(from.kind());
            u64::try_from(start + WINDOW_SECS - now).unwrap_or(1).max(1)
        })
    }

    /// Number of counters held (for tests of the bound).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.counters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(s: &str) -> Source {
        Source::of(Some(s.parse().expect("ip")))
    }

    #[test]
    fn an_account_locks_per_source_only() {
        let t = Throttle::default();
        for _ in 0..MAX_FAILURES_PER_ACCOUNT_SOURCE {
            let _failed = t
                .begin_login("a@x.io", src("1.1.1.1"), 100)
                .expect("allowed");
        }
        assert_eq!(
            t.begin_login("a@x.io", src("1.1.1.1"), 100).map(drop),
            Err(WINDOW_SECS as u64)
        );
        // The owner, elsewhere, is not locked out; the attacker is locked out of nothing else.
        let ok = t
            .begin_login("a@x.io", src("2.2.2.2"), 100)
            .expect("other source");
        t.succeeded(ok);
        let other = t
            .begin_login("b@x.io", src("1.1.1.1"), 100)
            .expect("other account");
        t.succeeded(other);
        assert!(
            t.begin_login("a@x.io", src("1.1.1.1"), 100 + WINDOW_SECS)
                .is_ok()
        );
    }

    #[test]
    fn a_source_locks_across_accounts_and_successes_do_not_count() {
        let t = Throttle::default();
        for i in 0..MAX_LOGIN_FAILURES_PER_SOURCE {
            if i % 2 == 0 {
                let ok = t
                    .begin_login("fine@x.io", src("9.9.9.9"), 0)
                    .expect("allowed");
                t.succeeded(ok);
            }
            let _failed = t
                .begin_login(&format!("u{i}@x.io"), src("9.9.9.9"), 0)
                .expect("allowed");
        }
        assert!(t.begin_login("fresh@x.io", src("9.9.9.9"), 1).is_err());
        assert!(t.begin_login("fresh@x.io", src("8.8.8.8"), 1).is_ok());
    }

    #[test]
    fn attempts_are_counted_before_they_finish() {
        // Ten concurrent attempts begin before any ends: only the limit get through.
        let t = Throttle::default();
        let begun: Vec<_> = (0..10)
            .map(|_| t.begin_login("a@x.io", src("1.1.1.1"), 0))
            .collect();
        assert_eq!(
            begun.iter().filter(|a| a.is_ok()).count(),
            MAX_FAILURES_PER_ACCOUNT_SOURCE as usize
        );
    }

    #[test]
    fn ipv6_counts_per_64() {
        assert_eq!(src("2001:db8:1:2::1"), src("2001:db8:1:2:ffff::9"));
        assert_ne!(src("2001:db8:1:2::1"), src("2001:db8:1:3::1"));
        assert_eq!(src("::ffff:1.2.3.4"), src("1.2.3.4"));
        assert_eq!(
            src("64:ff9b::102:304"),
            src("1.2.3.4"),
            "NAT64 clients count one by one"
        );
        assert_ne!(src("64:ff9b::102:304"), src("64:ff9b::102:305"));
        let t = Throttle::default();
        for i in 0..MAX_LOGIN_FAILURES_PER_SOURCE {
            let _failed = t
                .begin_login(
                    &format!("u{i}@x.io"),
                    src(&format!("2001:db8:1:2::{i:x}")),
                    0,
                )
                .expect("allowed");
        }
        assert!(
            t.begin_login("v@x.io", src("2001:db8:1:2:abcd::1"), 0)
                .is_err()
        );
        assert!(t.begin_login("v@x.io", src("2001:db8:1:3::1"), 0).is_ok());
    }

    /// A realm with the default registration budgets.
    fn test_realm(name: &str) -> crate::realms::Realm {
        crate::realms::Realm {
            id: RealmId::generate(),
            name: crate::realms::RealmName::parse(name).expect("name"),
            display_name: name.into(),
            enabled: true,
            default_resource_id: None,
            token_ttl_secs: 300,
            refresh_idle_ttl_secs: 0,
            refresh_max_ttl_secs: 0,
            registration_policy: crate::realms::RegistrationPolicy::Review,
            max_dynamic_clients: 1000,
            metadata_document_policy: crate::realms::MetadataDocumentPolicy::Review,
            metadata_document_domains: vec![],
            unused_client_ttl_secs: 0,
            client_secret_ttl_secs: 0,
            registrations_per_source: crate::realms::DEFAULT_REGISTRATIONS_PER_SOURCE,
            trusted_networks: vec![],
            registrations_per_trusted_network:
                crate::realms::DEFAULT_REGISTRATIONS_PER_TRUSTED_NETWORK,
            metadata_document_machine_domains: vec![],
            password_sign_in: true,
            created_at: 0,
            updated_at: 0,
        }
    }

    #[test]
    fn registrations_count_per_source_and_per_ipv6_site() {
        let t = Throttle::default();
        let realm = test_realm("default");
        for _ in 0..MAX_REGISTRATIONS_PER_SOURCE {
            t.registration(&realm, src("2001:db8:7::1"), 0)
                .expect("allowed");
        }
        assert_eq!(
            t.registration(&realm, src("2001:db8:7::2"), 0),
            Err(WINDOW_SECS as u64),
            "the same /64"
        );
        // New /64s of the same /48 share its wider budget, the refused attempt not counted.
        let mut allowed = MAX_REGISTRATIONS_PER_SOURCE;
        for i in 1..=MAX_REGISTRATIONS_PER_SITE {
            if t.registration(&realm, src(&format!("2001:db8:7:{i:x}::1")), 0)
                .is_ok()
            {
                allowed += 1;
            }
        }
        assert_eq!(allowed, MAX_REGISTRATIONS_PER_SITE);
        assert!(
            t.registration(&realm, src("2001:db8:8::1"), 0).is_ok(),
            "another site"
        );
        assert!(
            t.registration(&realm, src("2001:db8:7:ff::1"), WINDOW_SECS)
                .is_ok()
        );
        for i in 0..2 * MAX_REGISTRATIONS_PER_SOURCE {
            let v4 = format!("192.0.2.{i}");
            assert!(
                t.registration(&realm, src(&v4), 0).is_ok(),
                "IPv4 counts per address"
            );
        }
    }

    #[test]
    fn registrations_follow_the_realms_budgets_and_trusted_networks() {
        let t = Throttle::default();
        let mut realm = test_realm("office");
        realm.registrations_per_source = 3;
        realm.trusted_networks = vec![crate::net::Cidr::parse("203.0.113.0/24").expect("cidr")];
        realm.registrations_per_trusted_network = 30;
        // Thirty developers behind one NAT address of the trusted network.
        for i in 0..30 {
            assert!(t.registration(&realm, src("203.0.113.7"), 0).is_ok(), "{i}");
        }
        assert!(
            t.registration(&realm, src("203.0.113.8"), 0).is_err(),
            "one budget for the network"
        );
        // Anyone else has the realm's per-address budget.
        for _ in 0..3 {
            t.registration(&realm, src("198.51.100.1"), 0)
                .expect("allowed");
        }
        assert!(t.registration(&realm, src("198.51.100.1"), 0).is_err());
        // Budgets are per realm.
        let other = test_realm("other");
        assert!(t.registration(&other, src("198.51.100.1"), 0).is_ok());
    }

    #[test]
    fn a_stored_ipv6_range_narrower_than_a_64_never_widens_to_it() {
        let t = Throttle::default();
        let mut realm = test_realm("office6");
        realm.registrations_per_source = 2;
        // Stored before such ranges were refused: it names one host of the /64.
        realm.trusted_networks = vec![crate::net::Cidr::parse("2001:db8:0:1::/128").expect("cidr")];
        realm.registrations_per_trusted_network = 100;
        for _ in 0..2 {
            t.registration(&realm, src("2001:db8:0:1::99"), 0)
                .expect("allowed");
        }
        assert!(
            t.registration(&realm, src("2001:db8:0:1::99"), 0).is_err(),
            "the /64 keeps the per-source budget, not the network's"
        );
    }

    #[test]
    fn an_ipv6_site_shares_one_wider_budget() {
        let t = Throttle::default();
        // Every failure from a new /64 of the same /48.
        for i in 0..MAX_LOGIN_FAILURES_PER_SITE {
            let ip = format!("2001:db8:7:{i:x}::1");
            let _failed = t.begin_login("victim@x.io", src(&ip), 0).expect("allowed");
        }
        assert!(
            t.begin_login("victim@x.io", src("2001:db8:7:ffff::1"), 0)
                .is_err()
        );
        assert!(
            t.begin_login("victim@x.io", src("2001:db8:8::1"), 0)
                .is_ok(),
            "another site"
        );
    }

    #[test]
    fn locks_survive_a_flood_of_new_keys() {
        let t = Throttle::default();
        for _ in 0..MAX_FAILURES_PER_ACCOUNT_SOURCE {
            let _failed = t.begin_login("a@x.io", src("1.1.1.1"), 0).expect("allowed");
        }
        for i in 0..(MAX_ENTRIES as u32) {
            let _ = t.client_failed(
                &RealmId::from_stored("r"),
                "c",
                Source::V4(std::net::Ipv4Addr::from((i + 1) << 8)),
                1,
            );
        }
        assert!(
            t.begin_login("a@x.io", src("1.1.1.1"), 2).is_err(),
            "the lock was kept"
        );
    }

    #[test]
    fn client_failures_beyond_the_limit_ask_to_wait() {
        let t = Throttle::default();
        let realm = RealmId::generate();
        for _ in 0..MAX_CLIENT_FAILURES {
            assert_eq!(t.client_failed(&realm, "victim", src("6.6.6.6"), 0), None);
        }
        assert_eq!(
            t.client_failed(&realm, "victim", src("7.7.7.7"), 0),
            Some(WINDOW_SECS as u64)
        );
        assert_eq!(t.client_failed(&realm, "other", src("7.7.7.7"), 0), None);
    }

    #[test]
    fn memory_is_bounded() {
        let t = Throttle::default();
        for i in 0..(MAX_ENTRIES as u32 + 5_000) {
            let ip = std::net::Ipv4Addr::from(i);
            let _ = t.client_failed(&RealmId::from_stored("r"), "c", Source::V4(ip), 0);
        }
        assert!(t.len() <= MAX_ENTRIES);
    }
}
