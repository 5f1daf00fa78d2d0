//! Signed receipts: the server's Ed25519 signature over a game, a sequence number and the
//! chain hash of that event, so a player holding one can later prove what the log contained.
//!
//! The signed message is fixed byte for byte (`docs/receipts.md`), because verifiers in other
//! languages (`tools/ed25519.py`) rebuild it from the receipt's fields:
//!
//! ```text
//! parlour-receipt/1\n{"game":"<uuid>","hash":"<64 hex>","seq":<n>}
//! ```
//!
//! The key is the operator's (a file of 64 hex digits, the 32-byte secret seed), not the
//! database's: several instances share it, and a dump of the database alone cannot forge a
//! receipt.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use rand_core::{OsRng, TryRngCore};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;
use uuid::Uuid;

/// What every signed message starts with: names the format, so a signature over a receipt can
/// never be mistaken for one over anything else this key might sign later.
pub const MESSAGE_PREFIX: &[u8] = b"parlour-receipt/1\n";

/// What every signed checkpoint's message starts with: a checkpoint says more than a receipt
/// (that the game ended there), so it must never be passed off as one, nor one as it.
pub const CHECKPOINT_PREFIX: &[u8] = b"parlour-checkpoint/1\n";

/// The algorithm name published with each key.
pub const ALGORITHM: &str = "Ed25519";

/// The server's word that event `seq` of `game` had chain hash `hash`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Receipt {
    /// The game.
    pub game: Uuid,
    /// The event's sequence number in the game's log.
    pub seq: u64,
    /// The event's chain hash: 64 lowercase hex digits.
    #[schema(example = "3f7c0c1d9a1b2e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b")]
    pub hash: String,
    /// Which key signed it: see `GET /.well-known/parlour-keys`.
    #[schema(example = "9a4c2d1e0b3f5a67")]
    pub key_id: String,
    /// The Ed25519 signature of the message in `docs/receipts.md`: 128 lowercase hex digits.
    pub signature: String,
}

/// The server's word that `game` ended at event `seq`, whose chain hash is `hash`: nothing was
/// or will be appended after it. Published in the game file, in the audit and in the public
/// list `GET /v1/checkpoints`, so anyone who saw it once can tell a finished game rolled back
/// (or cut short) from the one that ended (`docs/audit.md`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Checkpoint {
    /// The game.
    pub game: Uuid,
    /// The sequence number of the game's last event.
    pub seq: u64,
    /// That event's chain hash: 64 lowercase hex digits.
    #[schema(example = "3f7c0c1d9a1b2e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b")]
    pub hash: String,
    /// Always `true`: a checkpoint is signed only for a game that is over.
    pub finished: bool,
    /// Which key signed it: see `GET /.well-known/parlour-keys`.
    #[schema(example = "9a4c2d1e0b3f5a67")]
    pub key_id: String,
    /// The Ed25519 signature of the message in `docs/audit.md`: 128 lowercase hex digits.
    pub signature: String,
}

/// A public key as published at `GET /.well-known/parlour-keys`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PublicKey {
    /// The key's id: the first 16 hex digits of the SHA-256 of the 32 public-key bytes.
    pub key_id: String,
    /// Always `Ed25519`.
    #[schema(example = "Ed25519")]
    pub algorithm: String,
    /// The 32-byte Ed25519 public key (RFC 8032 encoding) as 64 lowercase hex digits.
    pub public_key: String,
}

/// The keys receipts may be signed with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct KeySet {
    /// Today only the key in use; a list so that retired keys can be added without changing
    /// the document's shape.
    pub keys: Vec<PublicKey>,
}

/// Why a signing key could not be had.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The key file could not be read, created or written.
    #[error("signing key file {path}: {source}")]
    Io {
        /// The key file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The key file does not hold 64 hex digits.
    #[error("signing key file {0} must hold the 32-byte Ed25519 seed as 64 hex digits")]
    Malformed(PathBuf),
    /// The operating system's random number generator failed.
    #[error("the operating system's RNG failed: {0}")]
    Random(String),
}

/// Signs receipts with one Ed25519 key.
pub struct Signer {
    key: SigningKey,
    key_id: String,
}

impl fmt::Debug for Signer {
    // Never print the secret half.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signer")
            .field("key_id", &self.key_id)
            .finish_non_exhaustive()
    }
}

impl Signer {
    /// The signer of a 32-byte secret seed (RFC 8032's private key).
    pub fn from_seed(seed: [u8; 32]) -> Self {
        let key = SigningKey::from_bytes(&seed);
        let key_id = key_id(&key.verifying_key().to_bytes());
        Signer { key, key_id }
    }

    /// A fresh random key, for tests and for a server started without a key file.
    pub fn generate() -> Result<Self, KeyError> {
        Ok(Self::from_seed(random_seed()?))
    }

    /// The signer of a key file's text: 64 hex digits, white space around them ignored.
    pub fn from_hex(text: &str) -> Option<Self> {
        let mut seed = [0u8; 32];
        hex::decode_to_slice(text.trim(), &mut seed).ok()?;
        Some(Self::from_seed(seed))
    }

    /// Reads the key file at `path`, or, if there is none, creates it (mode 0600) with a fresh
    /// random key and logs a warning: a server that makes its own key works, but its receipts
    /// are only as durable and shared as that file.
    pub fn load_or_create(path: &Path) -> Result<Self, KeyError> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                warn_if_readable_by_others(path);
                Self::from_hex(&text).ok_or_else(|| KeyError::Malformed(path.to_path_buf()))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Self::create(path),
            Err(source) => Err(KeyError::Io {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Writes a fresh key to `path`, which must not exist yet.
    fn create(path: &Path) -> Result<Self, KeyError> {
        let io = |source| KeyError::Io {
            path: path.to_path_buf(),
            source,
        };
        let seed = random_seed()?;
        // Written whole under a temporary name and then linked into place, which fails if the
        // file exists: two instances starting at once on a shared directory never read a half
        // written key, and the loser of the race uses the winner's key.
        let temporary = path.with_file_name(format!(
            ".{}.{}.tmp",
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "parlour-signing.key".into()),
            hex::encode(&random_seed()?[..8])
        ));
        let written = write_private(&temporary, &format!("{}\n", hex::encode(seed)));
        let linked = written.and_then(|()| std::fs::hard_link(&temporary, path));
        // The temporary name has served its purpose whether or not the link was made.
        let _ = std::fs::remove_file(&temporary);
        match linked {
            Ok(()) => {
                let signer = Self::from_seed(seed);
                tracing::warn!(
                    path = %path.display(),
                    key_id = %signer.key_id,
                    "created a new receipt signing key: keep this file secret, back it up, and give every instance the same one"
                );
                Ok(signer)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let text = std::fs::read_to_string(path).map_err(io)?;
                Self::from_hex(&text).ok_or_else(|| KeyError::Malformed(path.to_path_buf()))
            }
            Err(e) => Err(io(e)),
        }
    }

    /// The key's id: the first 16 hex digits of the SHA-256 of the public key.
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// A 32-byte key for another purpose, derived from this secret seed and `purpose` (HMAC-
    /// SHA256): the operator keeps one secret file, every instance derives the same keys, and
    /// no derived key tells anything of the seed or of another purpose's key.
    pub fn derive_key(&self, purpose: &str) -> [u8; 32] {
        use hmac::Mac as _;
        // HMAC takes a key of any length, so this cannot fail.
        let mut mac = <hmac::Hmac<Sha256> as hmac::Mac>::new_from_slice(&self.key.to_bytes())
            .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
        mac.update(purpose.as_bytes());
        mac.finalize().into_bytes().into()
    }

    /// The 32 public-key bytes.
    pub fn public_key(&self) -> [u8; 32] {
        self.key.verifying_key().to_bytes()
    }

    /// The public key as published.
    pub fn public(&self) -> PublicKey {
        PublicKey {
            key_id: self.key_id.clone(),
            algorithm: ALGORITHM.to_string(),
            public_key: hex::encode(self.public_key()),
        }
    }

    /// Signs the receipt for event `seq` of `game` whose chain hash is `hash` (64 lowercase hex
    /// digits, as the chain writes it; a receipt over anything else will not verify).
    pub fn sign(&self, game: Uuid, seq: u64, hash: &str) -> Receipt {
        let signature: Signature = self.key.sign(&message(game, seq, hash));
        Receipt {
            game,
            seq,
            hash: hash.to_string(),
            key_id: self.key_id.clone(),
            signature: hex::encode(signature.to_bytes()),
        }
    }
}

impl Signer {
    /// Signs the checkpoint saying `game` ended at event `seq` with chain hash `hash`. Asked
    /// only of a game that is over: the server's signature is its word that the log ends here.
    pub fn sign_checkpoint(&self, game: Uuid, seq: u64, hash: &str) -> Checkpoint {
        let signature: Signature = self.key.sign(&checkpoint_message(game, seq, hash));
        Checkpoint {
            game,
            seq,
            hash: hash.to_string(),
            finished: true,
            key_id: self.key_id.clone(),
            signature: hex::encode(signature.to_bytes()),
        }
    }
}

/// The bytes a checkpoint's signature covers: [`CHECKPOINT_PREFIX`] and then the canonical JSON
/// `{"finished":true,"game":"<uuid>","hash":"<hash>","seq":<n>}`.
pub fn checkpoint_message(game: Uuid, seq: u64, hash: &str) -> Vec<u8> {
    let json = format!(
        r#"{{"finished":true,"game":"{}","hash":"{}","seq":{}}}"#,
        game.hyphenated(),
        hash,
        seq
    );
    let mut bytes = CHECKPOINT_PREFIX.to_vec();
    bytes.extend_from_slice(json.as_bytes());
    bytes
}

/// Whether `checkpoint` was signed by the key `public_key`, under the same strict rules as a
/// receipt ([`verify`]); one that does not say `finished` is not a checkpoint this server signs.
pub fn verify_checkpoint(public_key: &[u8; 32], checkpoint: &Checkpoint) -> bool {
    checkpoint.finished
        && verify_signature(
            public_key,
            &checkpoint.key_id,
            &checkpoint.hash,
            &checkpoint.signature,
            &checkpoint_message(checkpoint.game, checkpoint.seq, &checkpoint.hash),
        )
}

/// The bytes a receipt's signature covers: [`MESSAGE_PREFIX`] and then the canonical JSON
/// `{"game":"<uuid>","hash":"<hash>","seq":<n>}` (keys sorted, no white space, the UUID lowercase
/// and hyphenated, `seq` a decimal integer).
pub fn message(game: Uuid, seq: u64, hash: &str) -> Vec<u8> {
    // Written out rather than serialised, so that the bytes are visibly those of the spec; the
    // hash is hex, so nothing in it needs escaping (`verify` refuses any other hash).
    let json = format!(
        r#"{{"game":"{}","hash":"{}","seq":{}}}"#,
        game.hyphenated(),
        hash,
        seq
    );
    let mut bytes = MESSAGE_PREFIX.to_vec();
    bytes.extend_from_slice(json.as_bytes());
    bytes
}

/// A key's id: the first 16 hex digits of the SHA-256 of its 32 public-key bytes.
pub fn key_id(public_key: &[u8; 32]) -> String {
    hex::encode(&Sha256::digest(public_key)[..8])
}

/// Whether `receipt` was signed by the key `public_key`: its key id names that key, its hash
/// is 64 lowercase hex digits, its signature 128 lowercase hex digits, and the signature is a
/// valid Ed25519 signature of [`message`] under RFC 8032's strict rules (no small-order key
/// or `R`, `S` reduced).
pub fn verify(public_key: &[u8; 32], receipt: &Receipt) -> bool {
    verify_signature(
        public_key,
        &receipt.key_id,
        &receipt.hash,
        &receipt.signature,
        &message(receipt.game, receipt.seq, &receipt.hash),
    )
}

/// The checks a receipt and a checkpoint share: the key id names the key, the hash and the
/// signature are lowercase hex of their lengths, and the signature verifies strictly.
fn verify_signature(
    public_key: &[u8; 32],
    claimed_key_id: &str,
    hash: &str,
    signature_hex: &str,
    signed: &[u8],
) -> bool {
    if claimed_key_id != key_id(public_key)
        || !is_lower_hex(hash, 64)
        || !is_lower_hex(signature_hex, 128)
    {
        return false;
    }
    let mut signature = [0u8; 64];
    if hex::decode_to_slice(signature_hex, &mut signature).is_err() {
        return false;
    }
    let Ok(key) = VerifyingKey::from_bytes(public_key) else {
        return false;
    };
    key.verify_strict(signed, &Signature::from_bytes(&signature))
        .is_ok()
}

fn is_lower_hex(text: &str, len: usize) -> bool {
    text.len() == len && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn random_seed() -> Result<[u8; 32], KeyError> {
    let mut seed = [0u8; 32];
    OsRng
        .try_fill_bytes(&mut seed)
        .map_err(|e| KeyError::Random(e.to_string()))?;
    Ok(seed)
}

/// Creates `path` (which must not exist) readable and writable by its owner only, and writes
/// `text` to disk before returning.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

/// A key file others can read is a key others can sign with: say so, but serve, because the
/// operator may have reasons (a secrets volume mounted with other modes).
fn warn_if_readable_by_others(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path) {
            if meta.permissions().mode() & 0o077 != 0 {
                tracing::warn!(
                    path = %path.display(),
                    "the receipt signing key file can be read by other users: chmod 600 it"
                );
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_keys_depend_on_the_seed_and_the_purpose_and_are_not_the_seed() {
        let (a, b) = (Signer::from_seed([1; 32]), Signer::from_seed([2; 32]));
        let key = a.derive_key("webhook secrets v1");
        assert_eq!(
            key,
            Signer::from_seed([1; 32]).derive_key("webhook secrets v1")
        );
        assert_ne!(key, a.derive_key("something else"));
        assert_ne!(key, b.derive_key("webhook secrets v1"));
        assert_ne!(key, [1; 32]);
    }

    /// The golden key: seed bytes 0, 1, …, 31. `tools/ed25519.py --self-test` checks the same
    /// receipt, so the two implementations provably agree on the message bytes.
    fn golden_signer() -> Signer {
        let mut seed = [0u8; 32];
        for (byte, i) in seed.iter_mut().zip(0..=u8::MAX) {
            *byte = i;
        }
        Signer::from_seed(seed)
    }

    const GOLDEN_GAME: &str = "0190f3a2-7c4e-7b1d-9a2f-5e6d7c8b9a01";
    const GOLDEN_HASH: &str = "5f1a4f0fbd3c5e2d7b8a9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f";
    const GOLDEN_PUBLIC_KEY: &str =
        "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8";
    const GOLDEN_KEY_ID: &str = "56475aa75463474c";
    const GOLDEN_SIGNATURE: &str = "b90ea50a55557c6ac3510bbb8f5dd1ccfd80e1a5f23821dc49901bb3721e7aff17ebadb02f086b62255c014e3990be992dd0ae12a4cef1e8c77345a41899d50e";

    fn golden_receipt() -> Receipt {
        let game = Uuid::parse_str(GOLDEN_GAME).unwrap();
        golden_signer().sign(game, 42, GOLDEN_HASH)
    }

    #[test]
    fn the_message_is_the_prefix_and_the_canonical_json() {
        let game = Uuid::parse_str("0190F3A2-7C4E-7B1D-9A2F-5E6D7C8B9A01").unwrap();
        assert_eq!(
            String::from_utf8(message(game, 42, GOLDEN_HASH)).unwrap(),
            format!(
                "parlour-receipt/1\n{{\"game\":\"{GOLDEN_GAME}\",\"hash\":\"{GOLDEN_HASH}\",\"seq\":42}}"
            )
        );
    }

    /// The golden checkpoint: the golden key's signature that the golden game ended at event
    /// 42 with the golden hash. `tools/ed25519.py --self-test` checks the same one.
    const GOLDEN_CHECKPOINT_SIGNATURE: &str = "c3a01468bf347c456d1a4e6c5e1b1152f40f6bc1235bcdb72605307de6712fd536dfcd45981eddefd133ab48bb3aa78ca6fec2507acd0ba75982c3eb0f0b0b04";

    #[test]
    fn the_golden_checkpoint_is_pinned_and_is_not_a_receipt() {
        let game = Uuid::parse_str(GOLDEN_GAME).unwrap();
        let signer = golden_signer();
        let checkpoint = signer.sign_checkpoint(game, 42, GOLDEN_HASH);
        assert_eq!(
            String::from_utf8(checkpoint_message(game, 42, GOLDEN_HASH)).unwrap(),
            format!(
                "parlour-checkpoint/1\n{{\"finished\":true,\"game\":\"{GOLDEN_GAME}\",\"hash\":\"{GOLDEN_HASH}\",\"seq\":42}}"
            )
        );
        assert_eq!(checkpoint.signature, GOLDEN_CHECKPOINT_SIGNATURE);
        assert!(verify_checkpoint(&signer.public_key(), &checkpoint));
        // The receipt for the same event is another signature: neither passes for the other.
        let receipt = golden_receipt();
        assert_ne!(receipt.signature, checkpoint.signature);
        let as_receipt = Receipt {
            signature: checkpoint.signature.clone(),
            ..receipt.clone()
        };
        assert!(!verify(&signer.public_key(), &as_receipt));
        let as_checkpoint = Checkpoint {
            signature: receipt.signature,
            ..checkpoint.clone()
        };
        assert!(!verify_checkpoint(&signer.public_key(), &as_checkpoint));
        // Nor does one that does not say the game ended, or names another end.
        for changed in [
            Checkpoint {
                finished: false,
                ..checkpoint.clone()
            },
            Checkpoint {
                seq: 41,
                ..checkpoint.clone()
            },
            Checkpoint {
                hash: format!("{}0", &GOLDEN_HASH[..63]),
                ..checkpoint.clone()
            },
        ] {
            assert!(
                !verify_checkpoint(&signer.public_key(), &changed),
                "{changed:?}"
            );
        }
    }

    #[test]
    fn a_receipt_verifies_with_its_signers_key() {
        let signer = Signer::generate().unwrap();
        let receipt = signer.sign(Uuid::now_v7(), 7, GOLDEN_HASH);
        assert_eq!(receipt.signature.len(), 128);
        assert!(verify(&signer.public_key(), &receipt));
    }

    #[test]
    fn a_receipt_does_not_verify_with_another_key() {
        let receipt = golden_receipt();
        let other = Signer::generate().unwrap();
        assert!(!verify(&other.public_key(), &receipt));
        // Not even when the key id is made to name the other key.
        let relabelled = Receipt {
            key_id: other.key_id().to_string(),
            ..receipt
        };
        assert!(!verify(&other.public_key(), &relabelled));
    }

    #[test]
    fn changing_any_field_breaks_the_receipt() {
        let key = golden_signer().public_key();
        let receipt = golden_receipt();
        assert!(verify(&key, &receipt));
        let mut flipped_signature = receipt.signature.clone().into_bytes();
        flipped_signature[70] = if flipped_signature[70] == b'0' {
            b'1'
        } else {
            b'0'
        };
        let tampered = [
            Receipt {
                game: Uuid::parse_str("0190f3a2-7c4e-7b1d-9a2f-5e6d7c8b9a02").unwrap(),
                ..receipt.clone()
            },
            Receipt {
                seq: 43,
                ..receipt.clone()
            },
            Receipt {
                hash: format!("{}0", &GOLDEN_HASH[..63]),
                ..receipt.clone()
            },
            Receipt {
                hash: GOLDEN_HASH.to_uppercase(),
                ..receipt.clone()
            },
            Receipt {
                key_id: "0000000000000000".into(),
                ..receipt.clone()
            },
            Receipt {
                signature: String::from_utf8(flipped_signature).unwrap(),
                ..receipt.clone()
            },
            Receipt {
                signature: receipt.signature.to_uppercase(),
                ..receipt.clone()
            },
            Receipt {
                signature: receipt.signature[..126].to_string(),
                ..receipt.clone()
            },
        ];
        for t in tampered {
            assert!(!verify(&key, &t), "{t:?} verified");
        }
    }

    #[test]
    fn the_golden_receipt_is_pinned() {
        let signer = golden_signer();
        assert_eq!(hex::encode(signer.public_key()), GOLDEN_PUBLIC_KEY);
        assert_eq!(signer.key_id(), GOLDEN_KEY_ID);
        let receipt = golden_receipt();
        assert_eq!(receipt.key_id, GOLDEN_KEY_ID);
        assert_eq!(receipt.signature, GOLDEN_SIGNATURE);
        assert_eq!(
            serde_json::to_value(&receipt).unwrap(),
            serde_json::json!({
                "game": GOLDEN_GAME, "seq": 42, "hash": GOLDEN_HASH,
                "key_id": GOLDEN_KEY_ID, "signature": GOLDEN_SIGNATURE,
            })
        );
    }

    #[test]
    fn the_rfc_8032_test_vector_1_key_and_signature_come_out() {
        // RFC 8032 §7.1, TEST 1 (the empty message): checks the crate is the Ed25519 of the RFC.
        let mut seed = [0u8; 32];
        hex::decode_to_slice(
            "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            &mut seed,
        )
        .unwrap();
        let key = SigningKey::from_bytes(&seed);
        assert_eq!(
            hex::encode(key.verifying_key().to_bytes()),
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
        );
        assert_eq!(
            hex::encode(key.sign(b"").to_bytes()),
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        );
    }

    #[test]
    fn a_missing_key_file_is_created_private_and_then_reused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("parlour-signing.key");
        let first = Signer::load_or_create(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.trim().len(), 64);
        assert!(is_lower_hex(text.trim(), 64));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let second = Signer::load_or_create(&path).unwrap();
        assert_eq!(first.public_key(), second.public_key());
        // Nothing but the key file is left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_key_file_holds_the_seed_in_hex() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        let seed_hex: String = (0u8..32).map(|b| format!("{b:02x}")).collect();
        std::fs::write(&path, format!("  {seed_hex}\n")).unwrap();
        let signer = Signer::load_or_create(&path).unwrap();
        assert_eq!(signer.public_key(), golden_signer().public_key());
    }

    #[test]
    fn a_malformed_key_file_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        for text in ["", "not hex", &"ab".repeat(31), &"ab".repeat(33)] {
            std::fs::write(&path, text).unwrap();
            let result = Signer::load_or_create(&path);
            assert!(matches!(result, Err(KeyError::Malformed(_))), "{text:?}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
    }

    #[test]
    fn a_signer_never_prints_its_secret() {
        let signer = golden_signer();
        let printed = format!("{signer:?}");
        assert!(printed.contains(signer.key_id()));
        assert!(!printed.contains("000102030405"));
    }
}
