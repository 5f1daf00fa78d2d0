//! Mail by SMTP (`docs/playing-across-days.md`, "How Parlour reaches you"): the transport an
//! operator names with `--smtp-url`, and the shape of every mail the server sends, a
//! plain-text part beside the HTML one and, for notices, one-click unsubscribe (RFC 8058).
//! What a mail says is the service's (`service::email`); this module only sends it.

use std::time::Duration;

use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::Error as SmtpError;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

/// How long one mail may take to hand over.
const SEND_TIMEOUT: Duration = Duration::from_secs(30);

/// What is wrong with a mail server's settings.
#[derive(Debug, thiserror::Error)]
pub enum MailSetupError {
    /// `--smtp-url` cannot be read.
    #[error(
        "--smtp-url is not an SMTP URL (smtp://host:port, smtp://…?tls=required or smtps://…): {0}"
    )]
    Url(#[source] SmtpError),
    /// `--mail-from` is not an address.
    #[error("--mail-from is not a mailbox such as \"Parlour <parlour@example.org>\": {0}")]
    From(#[source] lettre::address::AddressError),
}

/// One mail to send.
#[derive(Debug, Clone)]
pub struct Mail {
    /// The one address it goes to.
    pub to: String,
    /// Its subject.
    pub subject: String,
    /// The plain-text part.
    pub text: String,
    /// The HTML part.
    pub html: String,
    /// The one-click unsubscribe URL (RFC 8058), for a notice.
    pub unsubscribe: Option<String>,
}

/// How one handing-over went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handed {
    /// The server took it (250).
    Accepted,
    /// The server refused it for good (5xx): the address is not to be mailed again.
    Refused {
        /// Its reply code.
        code: u16,
        /// What it said.
        reason: String,
    },
    /// It could not be handed over now (4xx, or no answer): to be tried again.
    Later {
        /// Its reply code, if it answered.
        code: Option<u16>,
        /// What went wrong.
        reason: String,
    },
}

/// The operator's mail server.
#[derive(Clone)]
pub struct Mailer {
    /// Its connection.
    transport: AsyncSmtpTransport<Tokio1Executor>,
    /// Whom mails come from.
    from: Mailbox,
}

impl std::fmt::Debug for Mailer {
    // The URL may hold the server's password: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailer")
            .field("from", &self.from.to_string())
            .finish_non_exhaustive()
    }
}

impl Mailer {
    /// The mail server at `url`, sending as `from`.
    pub fn new(url: &str, from: &str) -> Result<Self, MailSetupError> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(MailSetupError::Url)?
            .timeout(Some(SEND_TIMEOUT))
            .build();
        let from = from.parse().map_err(MailSetupError::From)?;
        Ok(Mailer { transport, from })
    }

    /// Hands `mail` to the server.
    pub async fn send(&self, mail: &Mail) -> Handed {
        let message = match self.message(mail) {
            Ok(message) => message,
            Err(reason) => {
                return Handed::Refused {
                    code: 0,
                    reason: format!("the mail cannot be written: {reason}"),
                }
            }
        };
        match self.transport.send(message).await {
            Ok(_) => Handed::Accepted,
            Err(error) => {
                let code = error.status().map(u16::from);
                let reason = error.to_string();
                if error.is_permanent() {
                    Handed::Refused {
                        code: code.unwrap_or(550),
                        reason,
                    }
                } else {
                    Handed::Later { code, reason }
                }
            }
        }
    }

    /// `mail` as a message: `multipart/alternative`, plain text first.
    fn message(&self, mail: &Mail) -> Result<Message, String> {
        let to: Mailbox = mail.to.parse().map_err(|e| format!("{e}"))?;
        let mut builder = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(mail.subject.clone())
            // Mail about a game, not a conversation: a reply reaches no one.
            .raw_header(HeaderValue::new(
                header_name("Auto-Submitted")?,
                "auto-generated".into(),
            ));
        if let Some(url) = &mail.unsubscribe {
            builder = builder
                .raw_header(HeaderValue::new(
                    header_name("List-Unsubscribe")?,
                    format!("<{url}>"),
                ))
                .raw_header(HeaderValue::new(
                    header_name("List-Unsubscribe-Post")?,
                    "List-Unsubscribe=One-Click".into(),
                ));
        }
        builder
            .multipart(MultiPart::alternative_plain_html(
                mail.text.clone(),
                mail.html.clone(),
            ))
            .map_err(|e| e.to_string())
    }
}

fn header_name(name: &'static str) -> Result<HeaderName, String> {
    HeaderName::new_from_ascii(name.to_string()).map_err(|e| e.to_string())
}

/// Whether `text` is an address a mail can be sent to (`local@domain`, as SMTP reads it).
pub fn is_address(text: &str) -> bool {
    text.parse::<lettre::Address>().is_ok()
}
