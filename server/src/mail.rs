//! The SMTP side of [`authz::mail`]: plain-text messages through the relay `mail.smtp_url`
//! names, with a short timeout (a slow relay delays nobody: the core sends in the background).
use authz::mail::{Mail, Mailer};
use lettre::message::Mailbox;
use lettre::message::header::ContentType;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::time::Duration;

/// How long one message may take, connection, TLS and the whole exchange included.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(15);

/// Sends through one SMTP relay.
pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    timeout: Duration,
}

impl std::fmt::Debug for SmtpMailer {
    // The transport holds the relay's credentials: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpMailer")
            .field("from", &self.from.to_string())
            .finish_non_exhaustive()
    }
}

impl SmtpMailer {
    /// A mailer for the relay at `url` sending as `from`, each message within `timeout`.
    ///
    /// The relay is reached over TLS (`smtps://`, or `smtp://…?tls=required` for STARTTLS);
    /// plain `smtp://` only on this machine (a loopback host), where nothing on the wire can
    /// read a password or strip STARTTLS.
    ///
    /// # Errors
    /// In words, when the URL or the sender address is not usable (never with the URL).
    pub fn new(url: &str, from: &str, timeout: Duration) -> Result<Self, String> {
        // No message repeats the URL: it may hold the relay's password.
        let parsed = url::Url::parse(url).map_err(|e| format!("smtp_url is not a URL: {e}"))?;
        let tls = parsed
            .query_pairs()
            .find(|(k, _)| k == "tls")
            .map(|(_, v)| v.into_owned());
        let loopback = match parsed.host() {
            // smtp is not a scheme the URL standard knows: an address comes as a domain.
            Some(url::Host::Domain(d)) => {
                d.eq_ignore_ascii_case("localhost")
                    || d.trim_start_matches('[')
                        .trim_end_matches(']')
                        .parse::<std::net::IpAddr>()
                        .is_ok_and(|a| a.is_loopback())
            }
            Some(url::Host::Ipv4(a)) => a.is_loopback(),
            Some(url::Host::Ipv6(a)) => a.is_loopback(),
            None => false,
        };
        match (parsed.scheme(), tls.as_deref()) {
            ("smtps", _) | ("smtp", Some("required")) => {}
            ("smtp", None) if loopback => {}
            ("smtp", Some("opportunistic")) => {
                return Err("smtp_url: tls=opportunistic lets anyone on the path strip STARTTLS; use tls=required or smtps://".to_owned());
            }
            ("smtp", None) => {
                return Err("smtp_url: plain smtp:// only to a relay on this machine; use smtps://host or smtp://host:587?tls=required".to_owned());
            }
            _ => {
                return Err("smtp_url is not an SMTP URL (smtps://host, smtp://host:587?tls=required, or smtp://127.0.0.1:25 for a local relay)".to_owned());
            }
        }
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| format!("smtp_url is not usable: {e}"))?
            .timeout(Some(timeout))
            .build();
        let from = from
            .parse::<Mailbox>()
            .map_err(|e| format!("from {from:?} is not an e-mail address: {e}"))?;
        Ok(Self {
            transport,
            from,
            timeout,
        })
    }
}

/// Why a message was not sent, in words: the SMTP reply code at most (a relay's reply text may
/// repeat the recipient's address).
fn why_not_sent(e: &lettre::transport::smtp::Error) -> String {
    match e.status() {
        Some(code) => format!("the SMTP relay refused it (reply {code})"),
        None if e.is_timeout() => "the SMTP relay did not answer in time".to_owned(),
        None if e.is_tls() => "no TLS connection to the SMTP relay".to_owned(),
        None => "the SMTP relay could not be reached".to_owned(),
    }
}

#[async_trait::async_trait]
impl Mailer for SmtpMailer {
    async fn send(&self, mail: &Mail) -> Result<(), String> {
        let mut message = Message::builder()
            .from(self.from.clone())
            .subject(mail.subject.clone())
            .header(ContentType::TEXT_PLAIN);
        for to in &mail.to {
            let to = to
                .parse::<Mailbox>()
                .map_err(|_| "a recipient is not an e-mail address".to_owned())?;
            message = message.to(to);
        }
        let message = message
            .body(mail.body.clone())
            .map_err(|e| format!("the message could not be built: {e}"))?;
        // lettre's own timeout covers the connection only: the whole exchange is bounded here.
        match tokio::time::timeout(self.timeout, self.transport.send(message)).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(why_not_sent(&e)),
            Err(_) => Err("the SMTP relay did not answer in time".to_owned()),
        }
    }
}
