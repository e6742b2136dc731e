//! Network address ranges (CIDR), for trusted proxies and a realm's trusted networks.
use std::net::IpAddr;

/// An address range, `10.0.0.0/8` or `2001:db8::/32` (a bare address is a /32 or /128).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cidr {
    addr: IpAddr,
    prefix: u8,
}

impl Cidr {
    /// Parses `address[/prefix]`, keeping the network only: `10.1.2.3/8` is `10.0.0.0/8`, so one
    /// range has one spelling (shown, stored and compared as such). An IPv4-mapped IPv6 address
    /// is its IPv4 address.
    ///
    /// # Errors
    /// A message naming the value.
    pub fn parse(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let bad = || format!("`{s}` is not an address range like 10.0.0.0/8 or 2001:db8::/32");
        let (addr, prefix) = match s.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s, None),
        };
        let addr: IpAddr = addr.parse().map_err(|_| bad())?;
        let mapped = matches!(addr, IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some());
        let addr = canonical(addr);
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            // `::ffff:10.0.0.0/104` is `10.0.0.0/8`. A mapped range wider than that once matched
            // nothing; refusing it keeps such a value from silently covering much of IPv4.
            Some(p) if mapped => p
                .parse::<u8>()
                .ok()
                .and_then(|p| p.checked_sub(96))
                .filter(|p| (8..=max).contains(p))
                .ok_or_else(bad)?,
            Some(p) => p.parse::<u8>().ok().filter(|p| *p <= max).ok_or_else(bad)?,
            None => max,
        };
        let addr = match addr {
            IpAddr::V4(a) => IpAddr::V4(
                (u32::from(a) & u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0)).into(),
            ),
            IpAddr::V6(a) => IpAddr::V6(
                (u128::from(a) & u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0))
                    .into(),
            ),
        };
        Ok(Self { addr, prefix })
    }

    /// The prefix length.
    pub fn prefix(&self) -> u8 {
        self.prefix
    }

    /// Whether this is an IPv4 range.
    pub fn is_ipv4(&self) -> bool {
        self.addr.is_ipv4()
    }

    /// Whether `ip` is in the range (IPv4-mapped IPv6 addresses count as IPv4).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        match (self.addr, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

/// An IPv4-mapped IPv6 address as the IPv4 address it carries; any other address unchanged.
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

impl std::fmt::Display for Cidr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.addr, self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::Cidr;

    fn shown(s: &str) -> String {
        Cidr::parse(s).expect(s).to_string()
    }

    #[test]
    fn one_range_has_one_spelling() {
        assert_eq!(shown("10.1.2.3/8"), "10.0.0.0/8");
        assert_eq!(shown(" 10.0.0.0/8 "), "10.0.0.0/8");
        assert_eq!(Cidr::parse("10.1.2.3/8"), Cidr::parse("10.0.0.0/8"));
        assert_eq!(shown("203.0.113.7"), "203.0.113.7/32");
        assert_eq!(shown("2001:db8:1:2::5/32"), "2001:db8::/32");
        assert_eq!(shown("::ffff:10.1.2.3/104"), "10.0.0.0/8");
        assert_eq!(shown("::ffff:10.1.2.3"), "10.1.2.3/32");
        assert_eq!(shown("0.0.0.0/0"), "0.0.0.0/0");
    }

    #[test]
    fn bad_ranges_are_refused() {
        for bad in [
            "10.0.0.0/33",
            "2001:db8::/129",
            "::ffff:10.0.0.0/95",
            "10.0.0/8",
            "x",
            "",
        ] {
            assert!(Cidr::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn contains_after_normalising() {
        let net = Cidr::parse("10.1.2.3/8").expect("cidr");
        assert!(net.contains("10.200.0.1".parse().expect("ip")));
        assert!(net.contains("::ffff:10.9.9.9".parse().expect("ip")));
        assert!(!net.contains("11.0.0.1".parse().expect("ip")));
    }
}
