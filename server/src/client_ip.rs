//! The client's IP address, for throttling, audit and logs.
//!
//! It is the socket peer, unless the peer is one of `http.trusted_proxies`: then it is the
//! rightmost address in the configured forwarding header (`X-Forwarded-For` or `Forwarded`,
//! RFC 7239) that is not itself a trusted proxy. Only that one header is read, so a header a
//! proxy passes through untouched cannot be used to spoof an address; and only trusted peers'
//! headers are read, so clients that reach the server directly cannot either.
use axum::extract::{ConnectInfo, Request};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// The resolved client address of a request (an extension set by [`layer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIp(pub IpAddr);

pub use authz::net::{Cidr, canonical};

/// Which header a trusted proxy sets (case-insensitive in the configuration, like header names).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", try_from = "String")]
pub enum ForwardingHeader {
    /// `X-Forwarded-For: client, proxy1, proxy2` (nginx `$proxy_add_x_forwarded_for`).
    #[default]
    XForwardedFor,
    /// `Forwarded: for=client, for=proxy1` (RFC 7239).
    Forwarded,
}

impl TryFrom<String> for ForwardingHeader {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "x-forwarded-for" => Ok(ForwardingHeader::XForwardedFor),
            "forwarded" => Ok(ForwardingHeader::Forwarded),
            _ => Err(format!(
                "`{s}` is not a forwarding header; use x-forwarded-for or forwarded"
            )),
        }
    }
}

/// How to find a request's client address.
#[derive(Debug, Clone, Default)]
pub struct ClientIpRule {
    /// Peers whose forwarding header is believed.
    pub trusted: Vec<Cidr>,
    /// The header they set.
    pub header: ForwardingHeader,
}

/// The hops listed in the forwarding header, left (client) to right (nearest proxy); a hop
/// that is not an address (`unknown`, an obfuscated identifier, garbage) is `None`.
fn hops(headers: &HeaderMap, header: ForwardingHeader) -> Vec<Option<IpAddr>> {
    let name = match header {
        ForwardingHeader::XForwardedFor => "x-forwarded-for",
        ForwardingHeader::Forwarded => "forwarded",
    };
    let mut out = Vec::new();
    // Bounded: at most 32 hops are considered, from the right.
    for value in headers.get_all(name) {
        let Ok(value) = value.to_str() else {
            out.push(None);
            continue;
        };
        for element in value.split(',') {
            let addr = match header {
                ForwardingHeader::XForwardedFor => Some(element.trim()),
                ForwardingHeader::Forwarded => element.split(';').find_map(|pair| {
                    let (k, v) = pair.trim().split_once('=')?;
                    k.trim().eq_ignore_ascii_case("for").then_some(v.trim())
                }),
            };
            out.push(addr.and_then(parse_hop));
        }
    }
    let skip = out.len().saturating_sub(32);
    out.split_off(skip)
}

/// An address as a hop names it: `1.2.3.4`, `1.2.3.4:5678`, `"[2001:db8::1]:80"`, `2001:db8::1`.
fn parse_hop(s: &str) -> Option<IpAddr> {
    let s = s.trim().trim_matches('"');
    if let Ok(ip) = s.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(sa) = s.parse::<SocketAddr>() {
        return Some(sa.ip());
    }
    s.strip_prefix('[')
        .and_then(|r| r.split(']').next())
        .and_then(|a| a.parse().ok())
}

impl ClientIpRule {
    /// Whether some trusted range covers a whole address family (a misconfiguration: every
    /// client could then choose its own address).
    pub fn trusts_everyone(&self) -> bool {
        self.trusted.iter().any(|c| c.prefix() == 0)
    }

    fn is_trusted(&self, ip: IpAddr) -> bool {
        self.trusted.iter().any(|c| c.contains(ip))
    }

    /// The client address of a request from `peer` with `headers`.
    pub fn resolve(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let mut client = canonical(peer);
        if !self.is_trusted(client) {
            return client;
        }
        for hop in hops(headers, self.header).into_iter().rev() {
            match hop {
                Some(ip) => {
                    client = canonical(ip);
                    if !self.is_trusted(client) {
                        return client;
                    }
                }
                // An unreadable hop: the nearest proxy that wrote a readable one is the most
                // that can be believed.
                None => return client,
            }
        }
        client
    }
}

/// Middleware: resolves the client address and stores it as a [`ClientIp`] extension.
pub async fn layer(
    axum::extract::State(rule): axum::extract::State<Arc<ClientIpRule>>,
    mut req: Request,
    next: Next,
) -> Response {
    if let Some(peer) = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())
    {
        let ip = rule.resolve(peer, req.headers());
        req.extensions_mut().insert(ClientIp(ip));
    }
    next.run(req).await
}

/// The resolved client address of a request, if the server knows its peer.
pub fn of(extensions: &axum::http::Extensions) -> Option<IpAddr> {
    extensions.get::<ClientIp>().map(|c| c.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    fn headers(name: &'static str, values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(name, v.parse().expect("header"));
        }
        h
    }

    fn rule(trusted: &[&str], header: ForwardingHeader) -> ClientIpRule {
        ClientIpRule {
            trusted: trusted
                .iter()
                .map(|c| Cidr::parse(c).expect("cidr"))
                .collect(),
            header,
        }
    }

    #[test]
    fn the_header_name_is_case_insensitive() {
        for (s, h) in [
            ("X-Forwarded-For", ForwardingHeader::XForwardedFor),
            ("x-forwarded-for", ForwardingHeader::XForwardedFor),
            ("Forwarded", ForwardingHeader::Forwarded),
        ] {
            assert_eq!(ForwardingHeader::try_from(s.to_owned()), Ok(h));
        }
        assert!(ForwardingHeader::try_from("x-real-ip".to_owned()).is_err());
        assert!(rule(&["0.0.0.0/0"], ForwardingHeader::Forwarded).trusts_everyone());
        assert!(!rule(&["10.0.0.0/8"], ForwardingHeader::Forwarded).trusts_everyone());
    }

    #[test]
    fn ranges() {
        let c = Cidr::parse("10.0.0.0/8").expect("cidr");
        assert!(c.contains(ip("10.9.8.7")) && !c.contains(ip("11.0.0.1")));
        assert!(
            c.contains(ip("::ffff:10.1.1.1")),
            "mapped addresses count as IPv4"
        );
        assert!(
            Cidr::parse("2001:db8::/32")
                .expect("cidr")
                .contains(ip("2001:db8:ffff::1"))
        );
        assert!(
            Cidr::parse("0.0.0.0/0")
                .expect("cidr")
                .contains(ip("8.8.8.8"))
        );
        assert!(
            Cidr::parse("192.168.1.5")
                .expect("cidr")
                .contains(ip("192.168.1.5"))
        );
        for bad in ["10.0.0.0/33", "nope", "10.0.0.0/x", "::/129", ""] {
            assert!(Cidr::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn headers_are_believed_only_from_trusted_peers() {
        let r = rule(&["10.0.0.0/8"], ForwardingHeader::XForwardedFor);
        let h = headers("x-forwarded-for", &["6.6.6.6"]);
        assert_eq!(
            r.resolve(ip("203.0.113.9"), &h),
            ip("203.0.113.9"),
            "direct client"
        );
        assert_eq!(r.resolve(ip("10.0.0.2"), &h), ip("6.6.6.6"));
        assert_eq!(r.resolve(ip("10.0.0.2"), &HeaderMap::new()), ip("10.0.0.2"));
        let none = rule(&[], ForwardingHeader::XForwardedFor);
        assert_eq!(
            none.resolve(ip("10.0.0.2"), &h),
            ip("10.0.0.2"),
            "no proxy trusted by default"
        );
    }

    #[test]
    fn the_rightmost_untrusted_hop_wins() {
        let r = rule(&["10.0.0.0/8"], ForwardingHeader::XForwardedFor);
        // The client forged the left part; the proxies appended on the right.
        let h = headers(
            "x-forwarded-for",
            &["1.1.1.1, 2.2.2.2", "198.51.100.7, 10.0.0.5"],
        );
        assert_eq!(r.resolve(ip("10.0.0.2"), &h), ip("198.51.100.7"));
        let garbage = headers("x-forwarded-for", &["1.1.1.1, nonsense, 10.0.0.5"]);
        assert_eq!(
            r.resolve(ip("10.0.0.2"), &garbage),
            ip("10.0.0.5"),
            "stops at garbage"
        );
        let all_trusted = headers("x-forwarded-for", &["10.1.1.1, 10.0.0.5"]);
        assert_eq!(r.resolve(ip("10.0.0.2"), &all_trusted), ip("10.1.1.1"));
    }

    #[test]
    fn only_the_configured_header_counts() {
        let xff = rule(&["10.0.0.0/8"], ForwardingHeader::XForwardedFor);
        let forged = headers("forwarded", &["for=6.6.6.6"]);
        assert_eq!(xff.resolve(ip("10.0.0.2"), &forged), ip("10.0.0.2"));
        let fwd = rule(&["10.0.0.0/8"], ForwardingHeader::Forwarded);
        let h = headers(
            "forwarded",
            &[
                "for=192.0.2.60;proto=http;by=203.0.113.43",
                "For=\"[2001:db8:cafe::17]:4711\"",
            ],
        );
        assert_eq!(fwd.resolve(ip("10.0.0.2"), &h), ip("2001:db8:cafe::17"));
        let obfuscated = headers("forwarded", &["for=192.0.2.60, for=_hidden"]);
        assert_eq!(fwd.resolve(ip("10.0.0.2"), &obfuscated), ip("10.0.0.2"));
    }
}
