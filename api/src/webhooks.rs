//! The Standard Webhooks scheme (<https://www.standardwebhooks.com>) as Parlour uses it:
//! signing secrets, the `webhook-signature` header, secrets sealed at rest, and which
//! destinations a server may be asked to call.
//!
//! A message is signed as `HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{body}")`,
//! sent as `v1,<base64>`; while a rotated secret's grace period lasts, one signature per live
//! secret is sent, separated by spaces, and a receiver accepts the message if any verifies.
//! The key is the base64 after `whsec_` in the secret its owner was shown once.
//!
//! Secrets are kept sealed (ChaCha20-Poly1305 under a key the operator holds, never in the
//! database), so a dump of the database alone cannot sign a message.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use rand_core::{OsRng, TryRngCore};
use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, CHACHA20_POLY1305, NONCE_LEN};
use sha2::Sha256;

/// What every secret's text starts with.
pub const SECRET_PREFIX: &str = "whsec_";
/// What a sealed secret's text starts with: the sealing scheme's version.
const SEALED_PREFIX: &str = "v1:";

/// Why a webhook's secret could not be made, sealed or opened.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// The operating system's RNG failed.
    #[error("the operating system's RNG failed: {0}")]
    Random(String),
    /// A sealed secret did not open under this server's key: another key sealed it, or the
    /// text was changed.
    #[error("a webhook secret does not open under this server's key (was the key changed?)")]
    Unsealable,
}

/// A webhook's signing secret: 32 random bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret([u8; 32]);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl Secret {
    /// A fresh secret from the operating system's RNG.
    pub fn generate() -> Result<Self, SecretError> {
        let mut key = [0u8; 32];
        OsRng
            .try_fill_bytes(&mut key)
            .map_err(|e| SecretError::Random(e.to_string()))?;
        Ok(Secret(key))
    }

    /// The secret as its owner is shown it: `whsec_` and the key in base64.
    pub fn text(&self) -> String {
        format!("{SECRET_PREFIX}{}", STANDARD.encode(self.0))
    }

    /// Reads a secret's text back (what a receiver does with the text it was shown).
    pub fn parse(text: &str) -> Option<Self> {
        let key = STANDARD.decode(text.strip_prefix(SECRET_PREFIX)?).ok()?;
        Some(Secret(key.try_into().ok()?))
    }

    /// The signature of one message: `v1,` and the base64 HMAC-SHA256 of
    /// `{id}.{timestamp}.{body}`.
    pub fn sign(&self, id: &str, timestamp: i64, body: &[u8]) -> String {
        format!(
            "v1,{}",
            STANDARD.encode(self.mac(id, timestamp, body).finalize().into_bytes())
        )
    }

    /// The HMAC of one message's signing input, `{id}.{timestamp}.{body}`, before it is
    /// finished.
    fn mac(&self, id: &str, timestamp: i64, body: &[u8]) -> Hmac<Sha256> {
        // HMAC takes a key of any length, so this cannot fail.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
        mac.update(format!("{id}.{timestamp}.").as_bytes());
        mac.update(body);
        mac
    }

    /// Whether `header` (a `webhook-signature` value: signatures separated by spaces) holds a
    /// `v1` signature of this message by this secret. Compared in constant time.
    pub fn verifies(&self, id: &str, timestamp: i64, body: &[u8], header: &str) -> bool {
        header.split(' ').any(|signature| {
            let Some(encoded) = signature.strip_prefix("v1,") else {
                return false;
            };
            let Ok(given) = STANDARD.decode(encoded) else {
                return false;
            };
            self.mac(id, timestamp, body).verify_slice(&given).is_ok()
        })
    }
}

/// The `webhook-signature` header for a message signed by every one of `secrets` (the current
/// one first, then one still in its grace period).
pub fn signature_header(secrets: &[&Secret], id: &str, timestamp: i64, body: &[u8]) -> String {
    secrets
        .iter()
        .map(|secret| secret.sign(id, timestamp, body))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Seals secrets for the database and opens them again, under a key the operator holds.
pub struct Sealer {
    key: LessSafeKey,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer(..)")
    }
}

impl Sealer {
    /// The sealer of a 32-byte key.
    pub fn new(key: [u8; 32]) -> Self {
        // A 32-byte key is exactly what ChaCha20-Poly1305 takes, so this cannot fail.
        let unbound = UnboundKey::new(&CHACHA20_POLY1305, &key)
            .unwrap_or_else(|_| unreachable!("ChaCha20-Poly1305 takes a 32-byte key"));
        Sealer {
            key: LessSafeKey::new(unbound),
        }
    }

    /// `secret` sealed, as text: `v1:` and the base64 of a fresh nonce, the ciphertext and
    /// its tag. `webhook` is bound in as associated data, so a sealed secret copied to
    /// another webhook's row does not open there.
    pub fn seal(&self, webhook: &str, secret: &Secret) -> Result<String, SecretError> {
        self.seal_bytes(webhook, &secret.0)
    }

    /// Opens what [`Sealer::seal`] made for `webhook`.
    pub fn open(&self, webhook: &str, sealed: &str) -> Result<Secret, SecretError> {
        let plain = self.open_bytes(webhook, sealed)?;
        Ok(Secret(
            plain.try_into().map_err(|_| SecretError::Unsealable)?,
        ))
    }

    /// Any secret bytes sealed for `webhook` as [`Sealer::seal`] seals a secret (a push
    /// subscription's keys).
    pub fn seal_bytes(&self, webhook: &str, secret: &[u8]) -> Result<String, SecretError> {
        let mut nonce = [0u8; NONCE_LEN];
        OsRng
            .try_fill_bytes(&mut nonce)
            .map_err(|e| SecretError::Random(e.to_string()))?;
        let mut sealed = secret.to_vec();
        self.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(webhook.as_bytes()),
                &mut sealed,
            )
            .map_err(|_| SecretError::Unsealable)?;
        let mut text = nonce.to_vec();
        text.extend(sealed);
        Ok(format!("{SEALED_PREFIX}{}", STANDARD.encode(text)))
    }

    /// Opens what [`Sealer::seal_bytes`] made for `webhook`.
    pub fn open_bytes(&self, webhook: &str, sealed: &str) -> Result<Vec<u8>, SecretError> {
        let bytes = sealed
            .strip_prefix(SEALED_PREFIX)
            .and_then(|b| STANDARD.decode(b).ok())
            .ok_or(SecretError::Unsealable)?;
        if bytes.len() < NONCE_LEN {
            return Err(SecretError::Unsealable);
        }
        let (nonce, rest) = bytes.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| SecretError::Unsealable)?;
        let mut rest = rest.to_vec();
        let plain = self
            .key
            .open_in_place(nonce, Aad::from(webhook.as_bytes()), &mut rest)
            .map_err(|_| SecretError::Unsealable)?;
        Ok(plain.to_vec())
    }
}

/// Why a URL is not one webhooks may be sent to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadDestination {
    /// Not an absolute `https` (or `http`) URL with a host.
    #[error("{0}")]
    Malformed(String),
    /// The host's name does not resolve.
    #[error("{host} does not resolve: {reason}")]
    Unresolvable {
        /// The host.
        host: String,
        /// What the resolver said.
        reason: String,
    },
    /// The host resolves to an address on this server's own networks.
    #[error("{host} resolves to {address}, a loopback, private or link-local address: webhooks go to public addresses only")]
    Private {
        /// The host.
        host: String,
        /// The address it resolved to.
        address: IpAddr,
    },
}

/// The most characters a webhook URL may have.
pub const MAX_URL_LENGTH: usize = 2000;

/// Checks that `text` is a URL webhooks may be registered with: absolute, `https` or `http`,
/// with a host and no credentials or fragment.
pub fn parse_url(text: &str) -> Result<url::Url, BadDestination> {
    if text.len() > MAX_URL_LENGTH {
        return Err(BadDestination::Malformed(format!(
            "a webhook URL has at most {MAX_URL_LENGTH} characters"
        )));
    }
    let url = url::Url::parse(text)
        .map_err(|e| BadDestination::Malformed(format!("{text:?} is not a URL: {e}")))?;
    if !matches!(url.scheme(), "https" | "http") {
        return Err(BadDestination::Malformed(format!(
            "a webhook URL is https (or http), not {}",
            url.scheme()
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(BadDestination::Malformed(
            "a webhook URL names a host".into(),
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(BadDestination::Malformed(
            "a webhook URL carries no user name or password: verify the signature instead".into(),
        ));
    }
    if url.fragment().is_some() {
        return Err(BadDestination::Malformed(
            "a webhook URL has no #fragment".into(),
        ));
    }
    Ok(url)
}

/// The addresses to send to for `url`, resolved once and checked: the caller connects to
/// these and no other, so a name that resolves elsewhere a moment later (DNS rebinding) cannot
/// redirect the request. Private addresses are allowed only when the operator says so.
pub async fn resolve(
    url: &url::Url,
    allow_private: bool,
) -> Result<Vec<SocketAddr>, BadDestination> {
    let host = url.host_str().unwrap_or_default().to_string();
    let port = url.port_or_known_default().unwrap_or(443);
    let literal = host.trim_start_matches('[').trim_end_matches(']');
    let addresses: Vec<SocketAddr> = match literal.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => tokio::net::lookup_host((host.as_str(), port))
            .await
            .map_err(|e| BadDestination::Unresolvable {
                host: host.clone(),
                reason: e.to_string(),
            })?
            .collect(),
    };
    if addresses.is_empty() {
        return Err(BadDestination::Unresolvable {
            host,
            reason: "no addresses".into(),
        });
    }
    if !allow_private {
        if let Some(address) = addresses.iter().find(|a| !is_public(a.ip())) {
            return Err(BadDestination::Private {
                host,
                address: address.ip(),
            });
        }
    }
    Ok(addresses)
}

/// Whether `ip` is an address on the public internet, judged against IANA's special-purpose
/// registries (RFC 6890 and its updates): IPv4 minus every special-purpose block; IPv6 only
/// within global unicast (2000::/3) and outside every special-purpose block there, so that no
/// form that embeds or reaches an IPv4 address (6to4, Teredo, NAT64, IPv4-compatible or
/// -translated) is judged by its IPv6 form. An IPv4 address mapped into IPv6 (`::ffff:a.b.c.d`,
/// which a dual-stack socket reaches over IPv4) is judged as that IPv4 address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        // 0.0.0.0/8 ("this network"), 100.64.0.0/10 (shared), 192.0.0.0/24 (protocol
        // assignments), 192.88.99.0/24 (the old 6to4 relay anycast), 198.18.0.0/15
        // (benchmarking), 240.0.0.0/4 (reserved).
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 192 && b == 88 && c == 99)
        || (a == 198 && (b == 18 || b == 19))
        || a >= 240)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let [first, second, ..] = ip.segments();
    // Global unicast is 2000::/3; everything outside it (loopback, unspecified, IPv4-compatible
    // and -translated forms, 64:ff9b::/96 and 64:ff9b:1::/48 NAT64, 100::/64 discard, 5f00::/16
    // SRv6, unique local fc00::/7, link-local fe80::/10, multicast ff00::/8) is refused whole.
    let global_unicast = (first & 0xe000) == 0x2000;
    global_unicast
        // 2001::/23 IETF protocol assignments, Teredo (2001::/32, which carries an IPv4
        // address) among them; 2001:db8::/32 documentation; 2002::/16 6to4 (likewise);
        // 3fff::/20 documentation.
        && !(first == 0x2001 && second < 0x0200)
        && !(first == 0x2001 && second == 0x0db8)
        && first != 0x2002
        && !(first == 0x3fff && second < 0x1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The example of the Standard Webhooks reference libraries.
    const SPEC_SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const SPEC_ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const SPEC_TIMESTAMP: i64 = 1_614_265_330;
    const SPEC_BODY: &[u8] = br#"{"test": 2432232314}"#;
    const SPEC_SIGNATURE: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    /// The spec's secret is 24 bytes; ours are 32. Signing is the same for any key length.
    fn spec_mac(key: &[u8]) -> String {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).unwrap();
        mac.update(format!("{SPEC_ID}.{SPEC_TIMESTAMP}.").as_bytes());
        mac.update(SPEC_BODY);
        format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
    }

    #[test]
    fn the_signing_input_is_the_specs() {
        let key = STANDARD
            .decode(SPEC_SECRET.strip_prefix(SECRET_PREFIX).unwrap())
            .unwrap();
        assert_eq!(spec_mac(&key), SPEC_SIGNATURE);
        // And our own signing builds that same input.
        let secret = Secret::generate().unwrap();
        assert_eq!(
            secret.sign(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY),
            spec_mac(&secret.0)
        );
    }

    #[test]
    fn a_signature_verifies_and_any_change_to_id_time_or_body_does_not() {
        let secret = Secret::generate().unwrap();
        let header = secret.sign("msg_1", 10, b"{}");
        assert!(secret.verifies("msg_1", 10, b"{}", &header));
        assert!(!secret.verifies("msg_2", 10, b"{}", &header));
        assert!(!secret.verifies("msg_1", 11, b"{}", &header));
        assert!(!secret.verifies("msg_1", 10, b"{ }", &header));
        assert!(!Secret::generate()
            .unwrap()
            .verifies("msg_1", 10, b"{}", &header));
    }

    #[test]
    fn during_a_rotation_both_secrets_sign_and_either_verifies() {
        let (new, old) = (Secret::generate().unwrap(), Secret::generate().unwrap());
        let header = signature_header(&[&new, &old], "msg_1", 10, b"{}");
        assert_eq!(header.split(' ').count(), 2);
        assert!(new.verifies("msg_1", 10, b"{}", &header));
        assert!(old.verifies("msg_1", 10, b"{}", &header));
    }

    #[test]
    fn a_secret_reads_back_from_the_text_its_owner_is_shown() {
        let secret = Secret::generate().unwrap();
        assert!(secret.text().starts_with("whsec_"));
        assert_eq!(Secret::parse(&secret.text()), Some(secret));
        assert_eq!(Secret::parse("whsec_!!"), None);
        assert_eq!(Secret::parse(SPEC_SECRET), None, "ours are 32 bytes");
    }

    #[test]
    fn a_sealed_secret_opens_only_under_the_same_key_and_for_the_same_webhook() {
        let secret = Secret::generate().unwrap();
        let sealer = Sealer::new([7; 32]);
        let sealed = sealer.seal("hook-a", &secret).unwrap();
        assert!(!sealed.contains(&secret.text()[SECRET_PREFIX.len()..]));
        assert_eq!(sealer.open("hook-a", &sealed).unwrap(), secret);
        assert!(sealer.open("hook-b", &sealed).is_err());
        assert!(Sealer::new([8; 32]).open("hook-a", &sealed).is_err());
        assert_ne!(
            sealer.seal("hook-a", &secret).unwrap(),
            sealed,
            "a fresh nonce each time"
        );
    }

    #[test]
    fn only_absolute_http_urls_with_a_host_and_no_credentials_are_taken() {
        assert!(parse_url("https://example.com/hooks").is_ok());
        assert!(parse_url("http://example.com:8080/x?y=1").is_ok());
        for bad in [
            "example.com/hooks",
            "ftp://example.com/",
            "https://user:pw@example.com/",
            "https://example.com/#frag",
            "file:///etc/passwd",
        ] {
            assert!(parse_url(bad).is_err(), "{bad}");
        }
        assert!(parse_url(&format!(
            "https://example.com/{}",
            "a".repeat(MAX_URL_LENGTH)
        ))
        .is_err());
    }

    #[test]
    fn loopback_private_link_local_and_mapped_addresses_are_not_public() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::7f00:1",
            // The attack's list: forms that embed or reach an IPv4 address, and the other
            // special-purpose ranges.
            "2002:7f00:1::1",
            "2002:a00:1::",
            "2001:0:4136:e378:8000:63bf:80ff:fffe",
            "2001::1",
            "2001:2::1",
            "::127.0.0.1",
            "::10.0.0.1",
            "::8.8.8.8",
            "::ffff:0:127.0.0.1",
            "::ffff:0:8.8.8.8",
            "100::1",
            "64:ff9b:1::a00:1",
            "5f00::1",
            "3fff::1",
            "2001:db8::1",
            "ff02::1",
            "192.88.99.1",
            "198.51.100.7",
            "255.255.255.255",
            "224.0.0.1",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for public in [
            "93.184.216.34",
            "1.1.1.1",
            "2606:4700:4700::1111",
            "2a00:1450:4001:80b::200e",
            "::ffff:1.1.1.1",
            "2001:4860:4860::8888",
        ] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }

    #[tokio::test]
    async fn a_url_naming_loopback_is_refused_unless_the_operator_allows_it() {
        let url = parse_url("http://127.0.0.1:9/hook").unwrap();
        assert!(matches!(
            resolve(&url, false).await,
            Err(BadDestination::Private { .. })
        ));
        assert_eq!(
            resolve(&url, true).await.unwrap(),
            vec!["127.0.0.1:9".parse().unwrap()]
        );
        let localhost = parse_url("http://localhost:9/hook").unwrap();
        assert!(resolve(&localhost, false).await.is_err());
    }
}
