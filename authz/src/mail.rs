//! E-mail to the people a decision concerns: a developer whose submission was rejected, the
//! contacts of a client a reviewer rejected.
//!
//! Off unless the server is given a [`Mailer`] (SMTP settings). A decision never waits for its
//! e-mail: messages are handed to a background task, and a failure is logged (without the
//! address) and audited, never reported to the person who decided.

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
