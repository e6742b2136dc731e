//! The SMTP side of [`authz::mail`]: plain-text messages through the relay `mail.smtp_url`
//! names, with a short timeout (a slow relay delays nobody: the core sends in the background).
use authz::mail::{Mail, Mailer};
use lettre::message::Mailbox;
use lettre::message::header::ContentType;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::time::Duration;

/// How long one message may take, connection included.
const SEND_TIMEOUT: Duration = Duration::from_secs(15);

/// Sends through one SMTP relay.
pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
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
    /// A mailer for the relay at `url` sending as `from`.
    ///
    /// # Errors
    /// In words, when the URL or the sender address is not usable (the URL's password is never
    /// in the message).
    pub fn new(url: &str, from: &str) -> Result<Self, String> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| {
                format!(
                    "smtp_url {} is not an SMTP URL (smtps://host, smtp://host?tls=required or smtp://host:port): {e}",
                    crate::config::redact_url(url)
                )
            })?
            .timeout(Some(SEND_TIMEOUT))
            .build();
        let from = from
            .parse::<Mailbox>()
            .map_err(|e| format!("from {from:?} is not an e-mail address: {e}"))?;
        Ok(Self { transport, from })
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
                .map_err(|e| format!("a recipient is not an e-mail address: {e}"))?;
            message = message.to(to);
        }
        let message = message
            .body(mail.body.clone())
            .map_err(|e| format!("the message could not be built: {e}"))?;
        self.transport
            .send(message)
            .await
            .map(|_| ())
            .map_err(|e| format!("the SMTP relay did not take it: {e}"))
    }
}
