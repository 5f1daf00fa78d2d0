//! Web Push as Parlour sends it: the message encryption of RFC 8291 (`aes128gcm`, RFC 8188)
//! and the server identification of RFC 8292 (VAPID). Pure: no I/O, no clock (the caller
//! says when a token expires), so each step is tested against the RFCs' own example.
//!
//! A browser subscribes with the server's *application server key* (its VAPID public key) and
//! gives back an endpoint at its push service and two keys of its own: `p256dh` (a P-256
//! public key) and `auth` (16 secret bytes). Every message is sealed to those keys, so the
//! push service carries it without being able to read it, and signed for with a short-lived
//! ES256 token the push service checks against the application server key.
//!
//! The VAPID key is derived from the server's signing key (`Signer::derive_key`): every
//! instance given the same key file has the same VAPID key, and there is no second secret
//! file to share. Replacing the signing key therefore replaces the VAPID key, and every
//! browser must subscribe again (`docs/operations.md`).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{Signature, SigningKey};
use p256::elliptic_curve::sec1::ToEncodedPoint as _;
use p256::{PublicKey, SecretKey};
use rand_core::{OsRng, TryRngCore};
use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_128_GCM};
use sha2::{Digest, Sha256};

use crate::receipts::Signer;

/// What the VAPID key is derived for from the signing key ([`Signer::derive_key`]).
pub const VAPID_KEY_PURPOSE: &str = "web push vapid v1";

/// The size of every message's plaintext, padding included: each push is exactly as long as
/// every other, so its length says nothing of what it tells.
pub const PLAINTEXT_SIZE: usize = 1024;

/// The longest payload a message can carry: one byte of the plaintext is the record's
/// delimiter (RFC 8188).
pub const MAX_PAYLOAD: usize = PLAINTEXT_SIZE - 1;

/// The record size every message declares (RFC 8188's `rs`, the most a record may hold):
/// 4096, as in RFC 8291's example; a message is one record, shorter than that.
const RECORD_SIZE: u32 = 4096;
const TAG_LEN: usize = 16;
const SALT_LEN: usize = 16;
/// A P-256 public key, uncompressed (`0x04 || X || Y`).
const POINT_LEN: usize = 65;
/// The same, as the header's one-byte key id length.
const POINT_LEN_BYTE: u8 = 65;
const AUTH_LEN: usize = 16;

/// Why a message could not be made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PushError {
    /// The payload is longer than one message carries.
    #[error("a push payload of {0} bytes is over the {MAX_PAYLOAD} one message carries")]
    TooLong(usize),
    /// A subscription's key is not what RFC 8291 says it must be.
    #[error("the subscription's {0}")]
    Key(&'static str),
    /// The operating system's RNG failed.
    #[error("the operating system's RNG failed: {0}")]
    Random(String),
    /// The endpoint has no origin to address a token to.
    #[error("the push endpoint has no origin")]
    NoOrigin,
    /// The AEAD refused its input (it cannot for the sizes used here).
    #[error("AES-128-GCM refused the message")]
    Seal,
}

/// A browser's keys for one subscription: what its messages are sealed to.
#[derive(Clone, PartialEq, Eq)]
pub struct UserAgentKeys {
    p256dh: PublicKey,
    auth: [u8; AUTH_LEN],
}

impl std::fmt::Debug for UserAgentKeys {
    // `auth` is a secret shared with the browser only.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UserAgentKeys(..)")
    }
}

impl UserAgentKeys {
    /// The keys as a browser's `PushSubscription.toJSON()` gives them: base64url (padded or
    /// not), `p256dh` an uncompressed P-256 point, `auth` 16 bytes.
    pub fn parse(p256dh: &str, auth: &str) -> Result<Self, PushError> {
        let point = decode(p256dh).ok_or(PushError::Key("p256dh is not base64url"))?;
        if point.len() != POINT_LEN || point[0] != 4 {
            return Err(PushError::Key(
                "p256dh is not an uncompressed P-256 public key (65 bytes starting 0x04)",
            ));
        }
        let p256dh = PublicKey::from_sec1_bytes(&point)
            .map_err(|_| PushError::Key("p256dh is not a point on P-256"))?;
        let auth = decode(auth)
            .ok_or(PushError::Key("auth is not base64url"))?
            .try_into()
            .map_err(|_| PushError::Key("auth is not 16 bytes"))?;
        Ok(UserAgentKeys { p256dh, auth })
    }
}

/// Base64url, with or without padding.
fn decode(text: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD
        .decode(text.trim().trim_end_matches('='))
        .ok()
}

fn encode(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The server's VAPID key (RFC 8292).
#[derive(Clone)]
pub struct Vapid {
    key: SigningKey,
}

impl std::fmt::Debug for Vapid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vapid")
            .field("application_server_key", &self.application_server_key())
            .finish_non_exhaustive()
    }
}

impl Vapid {
    /// The VAPID key every instance holding `signer`'s key file derives alike.
    pub fn from_signer(signer: &Signer) -> Self {
        let mut candidate = signer.derive_key(VAPID_KEY_PURPOSE);
        // A 32-byte string is a P-256 scalar unless it is zero or at least the group order
        // (odds about 2^-32); hashing again gives another candidate, the same on every instance.
        loop {
            if let Ok(key) = SigningKey::from_slice(&candidate) {
                return Vapid { key };
            }
            candidate = Sha256::digest(candidate).into();
        }
    }

    /// The public key as browsers take it (`applicationServerKey`): the uncompressed point,
    /// base64url without padding.
    pub fn application_server_key(&self) -> String {
        encode(self.key.verifying_key().to_encoded_point(false).as_bytes())
    }

    /// The `Authorization` header for a message to `endpoint`: `vapid t=<JWT>, k=<key>`,
    /// the token addressed to the endpoint's origin, naming `subject` (a `mailto:` or
    /// `https:` contact for the push service's operator) and expiring at `expires` (Unix
    /// seconds; RFC 8292 allows at most 24 hours ahead).
    pub fn authorization(
        &self,
        endpoint: &url::Url,
        subject: &str,
        expires: i64,
    ) -> Result<String, PushError> {
        let audience = match endpoint.origin() {
            origin @ url::Origin::Tuple(..) => origin.ascii_serialization(),
            url::Origin::Opaque(_) => return Err(PushError::NoOrigin),
        };
        let header = encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({"aud": audience, "exp": expires, "sub": subject});
        let signed = format!("{header}.{}", encode(claims.to_string().as_bytes()));
        let signature: Signature = self.key.sign(signed.as_bytes());
        Ok(format!(
            "vapid t={signed}.{}, k={}",
            encode(&signature.to_bytes()),
            self.application_server_key()
        ))
    }
}

/// `payload` sealed to `keys` (RFC 8291): one `aes128gcm` record padded to
/// [`PLAINTEXT_SIZE`], under a fresh sender key and salt.
pub fn encrypt(keys: &UserAgentKeys, payload: &[u8]) -> Result<Vec<u8>, PushError> {
    let sender = loop {
        let mut bytes = [0u8; 32];
        OsRng
            .try_fill_bytes(&mut bytes)
            .map_err(|e| PushError::Random(e.to_string()))?;
        if let Ok(key) = SecretKey::from_slice(&bytes) {
            break key;
        }
    };
    let mut salt = [0u8; SALT_LEN];
    OsRng
        .try_fill_bytes(&mut salt)
        .map_err(|e| PushError::Random(e.to_string()))?;
    encrypt_with(keys, payload, &sender, salt, PLAINTEXT_SIZE)
}

/// RFC 8291 §3.4 and RFC 8188 §2 with the sender's key and the salt given, the plaintext
/// padded to `size` bytes (the RFC's example pads it to the payload and its delimiter).
fn encrypt_with(
    keys: &UserAgentKeys,
    payload: &[u8],
    sender: &SecretKey,
    salt: [u8; SALT_LEN],
    size: usize,
) -> Result<Vec<u8>, PushError> {
    // A record and its tag must fit the declared record size.
    if payload.len() >= size || size + TAG_LEN > RECORD_SIZE as usize {
        return Err(PushError::TooLong(payload.len()));
    }
    let ua_public = keys.p256dh.to_encoded_point(false);
    let as_public = sender.public_key().to_encoded_point(false);
    let shared = p256::ecdh::diffie_hellman(sender.to_nonzero_scalar(), keys.p256dh.as_affine());

    // ## Key derivation (RFC 8291 §3.4), each HKDF-Expand one HMAC block long.
    let prk_key = hmac(&keys.auth, &[shared.raw_secret_bytes().as_slice()]);
    let ikm = hmac(
        &prk_key,
        &[
            b"WebPush: info\0",
            ua_public.as_bytes(),
            as_public.as_bytes(),
            &[1],
        ],
    );
    let prk = hmac(&salt, &[&ikm]);
    let cek = hmac(&prk, &[b"Content-Encoding: aes128gcm\0", &[1]]);
    let nonce = hmac(&prk, &[b"Content-Encoding: nonce\0", &[1]]);

    // ## One record: the payload, its delimiter (2: the last record), zeros to `size`.
    let mut record = Vec::with_capacity(size + TAG_LEN);
    record.extend_from_slice(payload);
    record.push(2);
    record.resize(size, 0);
    let key = UnboundKey::new(&AES_128_GCM, &cek[..16]).map_err(|_| PushError::Seal)?;
    let nonce = Nonce::try_assume_unique_for_key(&nonce[..12]).map_err(|_| PushError::Seal)?;
    LessSafeKey::new(key)
        .seal_in_place_append_tag(nonce, Aad::empty(), &mut record)
        .map_err(|_| PushError::Seal)?;

    // ## The header (RFC 8188 §2.1): salt, record size, key id (the sender's public key).
    let mut body = Vec::with_capacity(SALT_LEN + 5 + POINT_LEN + record.len());
    body.extend_from_slice(&salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(POINT_LEN_BYTE);
    body.extend_from_slice(as_public.as_bytes());
    body.extend_from_slice(&record);
    Ok(body)
}

/// The length of every message [`encrypt`] makes.
pub const MESSAGE_LEN: usize = SALT_LEN + 5 + POINT_LEN + PLAINTEXT_SIZE + TAG_LEN;

/// HMAC-SHA256 of the parts, one after another.
fn hmac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    // HMAC takes a key of any length, so this cannot fail.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::signature::Verifier as _;
    use p256::ecdsa::VerifyingKey;

    // RFC 8291 Appendix A: published example data, not credentials.
    const PLAINTEXT: &str = "When I grow up, I want to be a watermelon";
    const AS_PRIVATE: &str = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
    const UA_PRIVATE: &str = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94";
    const UA_PUBLIC: &str =
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
    const SALT: &str = "DGv6ra1nlYgDCS1FRnbzlw";
    const AUTH: &str = "BTBZMqHH6r4Tts7J_aSIgg";
    const BODY: &str = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN";

    /// What a browser does with a message: RFC 8291 from the other side, written apart from
    /// the sealing above so that a mistake in one is not repeated in the other.
    fn open(body: &[u8], ua_private: &SecretKey, auth: &[u8]) -> Vec<u8> {
        let salt = &body[..16];
        let record_size = u32::from_be_bytes(body[16..20].try_into().unwrap()) as usize;
        let id_len = body[20] as usize;
        let as_public = &body[21..21 + id_len];
        let record = &body[21 + id_len..];
        assert!(record.len() <= record_size, "one record");
        let sender = PublicKey::from_sec1_bytes(as_public).unwrap();
        let shared = p256::ecdh::diffie_hellman(ua_private.to_nonzero_scalar(), sender.as_affine());
        let ua_public = ua_private.public_key().to_encoded_point(false);
        let hkdf = |salt: &[u8], ikm: &[u8], info: &[u8], len: usize| {
            let mut okm = vec![0u8; len];
            hkdf::Hkdf::<Sha256>::new(Some(salt), ikm)
                .expand(info, &mut okm)
                .unwrap();
            okm
        };
        let mut info = b"WebPush: info\0".to_vec();
        info.extend_from_slice(ua_public.as_bytes());
        info.extend_from_slice(as_public);
        let ikm = hkdf(auth, shared.raw_secret_bytes().as_slice(), &info, 32);
        let cek = hkdf(salt, &ikm, b"Content-Encoding: aes128gcm\0", 16);
        let nonce = hkdf(salt, &ikm, b"Content-Encoding: nonce\0", 12);
        let key = LessSafeKey::new(UnboundKey::new(&AES_128_GCM, &cek).unwrap());
        let mut record = record.to_vec();
        let plain = key
            .open_in_place(
                Nonce::try_assume_unique_for_key(&nonce).unwrap(),
                Aad::empty(),
                &mut record,
            )
            .expect("the record opens");
        let end = plain.iter().rposition(|&b| b != 0).unwrap();
        assert_eq!(plain[end], 2, "the last record's delimiter");
        plain[..end].to_vec()
    }

    fn secret(text: &str) -> SecretKey {
        SecretKey::from_slice(&decode(text).unwrap()).unwrap()
    }

    #[test]
    fn sealing_the_rfc_example_gives_the_rfc_body_byte_for_byte() {
        let keys = UserAgentKeys::parse(UA_PUBLIC, AUTH).unwrap();
        let salt = decode(SALT).unwrap().try_into().unwrap();
        let body = encrypt_with(
            &keys,
            PLAINTEXT.as_bytes(),
            &secret(AS_PRIVATE),
            salt,
            PLAINTEXT.len() + 1,
        )
        .unwrap();
        assert_eq!(encode(&body), BODY);
    }

    #[test]
    fn the_browser_side_opens_the_rfc_body() {
        let body = decode(BODY).unwrap();
        let opened = open(&body, &secret(UA_PRIVATE), &decode(AUTH).unwrap());
        assert_eq!(opened, PLAINTEXT.as_bytes());
    }

    #[test]
    fn a_message_opens_with_the_browsers_keys_and_is_as_long_as_every_other() {
        let keys = UserAgentKeys::parse(UA_PUBLIC, AUTH).unwrap();
        let short = encrypt(&keys, b"{}").unwrap();
        let long = encrypt(&keys, &[b'x'; MAX_PAYLOAD]).unwrap();
        assert_eq!(
            open(&short, &secret(UA_PRIVATE), &decode(AUTH).unwrap()),
            b"{}"
        );
        assert_eq!(short.len(), MESSAGE_LEN);
        assert_eq!(long.len(), MESSAGE_LEN);
        // A fresh sender key and salt each time: the same notice twice looks unrelated.
        assert_ne!(encrypt(&keys, b"{}").unwrap()[..86], short[..86]);
    }

    #[test]
    fn a_payload_longer_than_one_message_is_refused() {
        let keys = UserAgentKeys::parse(UA_PUBLIC, AUTH).unwrap();
        assert_eq!(
            encrypt(&keys, &[b'x'; MAX_PAYLOAD + 1]),
            Err(PushError::TooLong(MAX_PAYLOAD + 1))
        );
    }

    #[test]
    fn keys_that_are_not_a_subscriptions_are_refused_with_the_reason() {
        let short_point = encode(&decode(UA_PUBLIC).unwrap()[..33]);
        let off_curve = {
            let mut point = decode(UA_PUBLIC).unwrap();
            point[64] ^= 1;
            encode(&point)
        };
        for (p256dh, auth, why) in [
            ("not base64!", AUTH, "p256dh is not base64url"),
            (short_point.as_str(), AUTH, "p256dh is not an uncompressed"),
            (off_curve.as_str(), AUTH, "p256dh is not a point on P-256"),
            (UA_PUBLIC, "AAAA", "auth is not 16 bytes"),
        ] {
            let Err(PushError::Key(reason)) = UserAgentKeys::parse(p256dh, auth) else {
                panic!("{p256dh} / {auth} accepted");
            };
            assert!(reason.starts_with(why), "{reason}");
        }
        // Padded base64url, as some browsers give it, is the same key.
        assert!(UserAgentKeys::parse(&format!("{UA_PUBLIC}="), "BTBZMqHH6r4Tts7J_aSIgg==").is_ok());
    }

    #[test]
    fn the_vapid_token_is_signed_by_the_published_key_for_the_endpoints_origin() {
        let vapid = Vapid::from_signer(&Signer::from_seed([7; 32]));
        let endpoint = url::Url::parse("https://push.example.net:8443/send/abc?x=1").unwrap();
        let header = vapid
            .authorization(&endpoint, "mailto:ops@example.org", 1_800_000_000)
            .unwrap();
        let (token, key) = header
            .strip_prefix("vapid t=")
            .and_then(|rest| rest.split_once(", k="))
            .unwrap();
        assert_eq!(key, vapid.application_server_key());
        let (signed, signature) = token.rsplit_once('.').unwrap();
        let verifier = VerifyingKey::from_sec1_bytes(&decode(key).unwrap()).unwrap();
        let signature = Signature::from_slice(&decode(signature).unwrap()).unwrap();
        verifier.verify(signed.as_bytes(), &signature).unwrap();
        let (head, claims) = signed.split_once('.').unwrap();
        let head: serde_json::Value = serde_json::from_slice(&decode(head).unwrap()).unwrap();
        let claims: serde_json::Value = serde_json::from_slice(&decode(claims).unwrap()).unwrap();
        assert_eq!(head["alg"], "ES256");
        assert_eq!(
            claims,
            serde_json::json!({"aud": "https://push.example.net:8443", "exp": 1_800_000_000, "sub": "mailto:ops@example.org"})
        );
    }

    #[test]
    fn every_instance_with_the_key_file_has_the_same_vapid_key_and_another_file_another() {
        let one = Vapid::from_signer(&Signer::from_seed([7; 32]));
        let again = Vapid::from_signer(&Signer::from_seed([7; 32]));
        let other = Vapid::from_signer(&Signer::from_seed([8; 32]));
        assert_eq!(one.application_server_key(), again.application_server_key());
        assert_ne!(one.application_server_key(), other.application_server_key());
        assert_eq!(decode(&one.application_server_key()).unwrap().len(), 65);
    }
}
