#!/usr/bin/env python3
"""Ed25519 signature verification (RFC 8032) and Parlour receipt checks, standard library only.

Parlour signs a receipt for every accepted move: its Ed25519 signature over the game, the
event's sequence number and the event's chain hash (docs/receipts.md). This module checks such
receipts without trusting any of Parlour's code, or any cryptography package: it is a verifier
only, written from RFC 8032 section 5.1.7 after the reference code in section 6.

It verifies strictly, as the server's own check (ed25519-dalek's verify_strict) does: encodings
must be canonical, S must be below the group order, and neither the public key nor R may be a
point of small order. The equation checked is the cofactorless [S]B = R + [k]A.

Usage:
  python3 tools/ed25519.py --self-test                       RFC 8032 vectors, a golden receipt and checkpoint
  python3 tools/ed25519.py --public-key HEX --receipts FILE  verify the receipt(s) in FILE
  python3 tools/ed25519.py --server URL --receipts FILE      ... with the keys the server publishes

FILE holds one receipt (a JSON object with game, seq, hash, key_id, signature) or a list of them.
Exit status: 0 only if every receipt verifies (or every self-test passes); 1 otherwise.

Python 3.8+. Not constant time: it handles public data only, never a secret key.
"""

import argparse
import hashlib
import json
import re
import sys
import urllib.request
import uuid

# The curve edwards25519 (RFC 8032 section 5.1).
P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493  # the order of the base point


def _inv(x):
    return pow(x, P - 2, P)


D = -121665 * _inv(121666) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
IDENTITY = (0, 1, 1, 0)  # extended homogeneous coordinates (X, Y, Z, T), x = X/Z, y = Y/Z


def _add(p1, p2):
    a = (p1[1] - p1[0]) * (p2[1] - p2[0]) % P
    b = (p1[1] + p1[0]) * (p2[1] + p2[0]) % P
    c = 2 * p1[3] * p2[3] * D % P
    d = 2 * p1[2] * p2[2] % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _mul(scalar, point):
    result = IDENTITY
    while scalar > 0:
        if scalar & 1:
            result = _add(result, point)
        point = _add(point, point)
        scalar >>= 1
    return result


def _equal(p1, p2):
    return (p1[0] * p2[2] - p2[0] * p1[2]) % P == 0 and (p1[1] * p2[2] - p2[1] * p1[2]) % P == 0


def _recover_x(y, sign):
    if y >= P:
        return None  # a non-canonical encoding
    x2 = (y * y - 1) * _inv(D * y * y + 1) % P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P != 0:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P != 0:
        return None  # not on the curve
    if (x & 1) != sign:
        x = P - x
    return x


def _decompress(encoded):
    """The point a 32-byte encoding names, or None if it names none (section 5.1.3)."""
    if len(encoded) != 32:
        return None
    y = int.from_bytes(encoded, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % P)


_GY = 4 * _inv(5) % P
B = (_recover_x(_GY, 0), _GY, 1, _recover_x(_GY, 0) * _GY % P)  # the base point


def _small_order(point):
    return _equal(_mul(8, point), IDENTITY)


def verify(public_key, message, signature):
    """Whether `signature` (64 bytes) is a valid Ed25519 signature of `message` (bytes) by the
    key `public_key` (32 bytes). Never raises for bad input of the right types: it answers False."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = _decompress(public_key)
    r = _decompress(signature[:32])
    if a is None or r is None or _small_order(a) or _small_order(r):
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= L:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(), "little") % L
    return _equal(_mul(s, B), _add(r, _mul(k, a)))


# ---------------------------------------------------------------------------------------------
# Parlour receipts (docs/receipts.md).

RECEIPT_PREFIX = b"parlour-receipt/1\n"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX128 = re.compile(r"[0-9a-f]{128}")


def key_id(public_key):
    """A key's id: the first 16 hex digits of SHA-256 of its 32 public-key bytes."""
    return hashlib.sha256(public_key).hexdigest()[:16]


def receipt_message(game, seq, hash_hex):
    """The bytes a receipt's signature covers: the prefix, then the canonical JSON
    {"game":"<uuid lowercase hyphenated>","hash":"<64 hex>","seq":<n>}."""
    text = '{"game":"%s","hash":"%s","seq":%d}' % (str(uuid.UUID(game)), hash_hex, seq)
    return RECEIPT_PREFIX + text.encode("ascii")


def verify_receipt(public_key_hex, receipt, message_of=None):
    """Whether the receipt (a dict as the server sent it) was signed by the key whose 32 bytes
    are `public_key_hex`: the key id must name that key, the hash be 64 and the signature 128
    lowercase hex digits, seq an integer in [0, 2^64), and the signature valid."""
    try:
        public_key = bytes.fromhex(public_key_hex)
        game, seq = receipt["game"], receipt["seq"]
        hash_hex, signature_hex = receipt["hash"], receipt["signature"]
        if (
            len(public_key) != 32
            or receipt["key_id"] != key_id(public_key)
            or not isinstance(game, str)
            or isinstance(seq, bool)
            or not isinstance(seq, int)
            or not 0 <= seq < 2**64
            or not isinstance(hash_hex, str)
            or not _HEX64.fullmatch(hash_hex)
            or not isinstance(signature_hex, str)
            or not _HEX128.fullmatch(signature_hex)
        ):
            return False
        message = (message_of or receipt_message)(game, seq, hash_hex)
    except (KeyError, TypeError, ValueError):
        return False
    return verify(public_key, message, bytes.fromhex(signature_hex))


CHECKPOINT_PREFIX = b"parlour-checkpoint/1\n"


def checkpoint_message(game, seq, hash_hex):
    """The bytes a checkpoint's signature covers: its own prefix, then the canonical JSON
    {"finished":true,"game":"<uuid>","hash":"<64 hex>","seq":<n>}."""
    text = '{"finished":true,"game":"%s","hash":"%s","seq":%d}' % (str(uuid.UUID(game)), hash_hex, seq)
    return CHECKPOINT_PREFIX + text.encode("ascii")


def verify_checkpoint(public_key_hex, checkpoint):
    """Whether the checkpoint (a dict as the server published it) says `finished` and was signed
    by the key `public_key_hex`, under the same strict rules as a receipt."""
    if not isinstance(checkpoint, dict) or checkpoint.get("finished") is not True:
        return False
    as_receipt = dict(checkpoint)
    as_receipt.pop("finished")
    try:
        ok = verify_receipt(public_key_hex, as_receipt, checkpoint_message)
    except (KeyError, TypeError, ValueError):
        return False
    return ok


def fetch_keys(server):
    """The public keys a Parlour server publishes, as {key_id: public_key_hex}."""
    url = server.rstrip("/") + "/.well-known/parlour-keys"
    with urllib.request.urlopen(url, timeout=30) as response:
        document = json.loads(response.read().decode("utf-8"))
    return {key["key_id"]: key["public_key"] for key in document["keys"] if key.get("algorithm") == "Ed25519"}


# ---------------------------------------------------------------------------------------------
# Self-test.

# RFC 8032 section 7.1, TEST 1 to TEST 3: (public key, message, signature).
RFC8032_VECTORS = [
    (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
]

# The golden receipt pinned in api/src/receipts.rs: the key of seed bytes 0, 1, ..., 31.
GOLDEN_PUBLIC_KEY = "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
GOLDEN_RECEIPT = {
    "game": "0190f3a2-7c4e-7b1d-9a2f-5e6d7c8b9a01",
    "seq": 42,
    "hash": "5f1a4f0fbd3c5e2d7b8a9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f",
    "key_id": "56475aa75463474c",
    "signature": "b90ea50a55557c6ac3510bbb8f5dd1ccfd80e1a5f23821dc49901bb3721e7aff17ebadb02f086b62255c014e3990be992dd0ae12a4cef1e8c77345a41899d50e",
}
# The golden checkpoint pinned in api/src/receipts.rs: the same key, game, seq and hash.
GOLDEN_CHECKPOINT = dict(
    GOLDEN_RECEIPT,
    finished=True,
    signature="c3a01468bf347c456d1a4e6c5e1b1152f40f6bc1235bcdb72605307de6712fd536dfcd45981eddefd133ab48bb3aa78ca6fec2507acd0ba75982c3eb0f0b0b04",
)
GOLDEN_MESSAGE = (
    b'parlour-receipt/1\n{"game":"0190f3a2-7c4e-7b1d-9a2f-5e6d7c8b9a01",'
    b'"hash":"5f1a4f0fbd3c5e2d7b8a9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f","seq":42}'
)


def _flip(hex_text, index):
    """The hex text with one bit of byte `index` flipped."""
    data = bytearray.fromhex(hex_text)
    data[index] ^= 1
    return data.hex()


def self_test():
    checks = []
    for n, (pk, msg, sig) in enumerate(RFC8032_VECTORS, 1):
        pk_b, msg_b, sig_b = bytes.fromhex(pk), bytes.fromhex(msg), bytes.fromhex(sig)
        checks.append(("RFC 8032 test %d verifies" % n, verify(pk_b, msg_b, sig_b)))
        checks.append(("RFC 8032 test %d with another message fails" % n, not verify(pk_b, msg_b + b"x", sig_b)))
        checks.append(("RFC 8032 test %d with a flipped R bit fails" % n, not verify(pk_b, msg_b, bytes.fromhex(_flip(sig, 3)))))
        checks.append(("RFC 8032 test %d with a flipped S bit fails" % n, not verify(pk_b, msg_b, bytes.fromhex(_flip(sig, 40)))))
        checks.append(("RFC 8032 test %d under another key fails" % n, not verify(bytes.fromhex(RFC8032_VECTORS[n % 3][0]), msg_b, sig_b)))
        # S + L is the same scalar, but not reduced: a strict verifier refuses it.
        s = int.from_bytes(sig_b[32:], "little") + L
        checks.append(("RFC 8032 test %d with S + L fails" % n, not verify(pk_b, msg_b, sig_b[:32] + s.to_bytes(32, "little"))))
    # The identity point (y = 1) is of small order: no signature under it counts.
    identity = (1).to_bytes(32, "little")
    checks.append(("a small-order public key is refused", not verify(identity, b"", identity + bytes(32))))

    golden = GOLDEN_RECEIPT
    checks.append(("the golden receipt's message bytes", receipt_message(golden["game"], golden["seq"], golden["hash"]) == GOLDEN_MESSAGE))
    checks.append(("the golden key id", key_id(bytes.fromhex(GOLDEN_PUBLIC_KEY)) == golden["key_id"]))
    checks.append(("the golden receipt verifies", verify_receipt(GOLDEN_PUBLIC_KEY, golden)))
    tampered = {
        "game": dict(golden, game="0190f3a2-7c4e-7b1d-9a2f-5e6d7c8b9a02"),
        "seq": dict(golden, seq=43),
        "seq as text": dict(golden, seq="42"),
        "hash": dict(golden, hash=_flip(golden["hash"], 31)),
        "hash in capitals": dict(golden, hash=golden["hash"].upper()),
        "key_id": dict(golden, key_id="0000000000000000"),
        "signature": dict(golden, signature=_flip(golden["signature"], 63)),
        "signature cut short": dict(golden, signature=golden["signature"][:126]),
        "missing field": {k: v for k, v in golden.items() if k != "hash"},
    }
    for what, receipt in tampered.items():
        checks.append(("the golden receipt with another %s fails" % what, not verify_receipt(GOLDEN_PUBLIC_KEY, receipt)))
    checks.append(("the golden receipt under another key fails", not verify_receipt(RFC8032_VECTORS[0][0], golden)))

    checkpoint = GOLDEN_CHECKPOINT
    checks.append(("the golden checkpoint verifies", verify_checkpoint(GOLDEN_PUBLIC_KEY, checkpoint)))
    checks.append(("the golden checkpoint is no receipt", not verify_receipt(GOLDEN_PUBLIC_KEY, dict(golden, signature=checkpoint["signature"]))))
    checks.append(("the golden receipt is no checkpoint", not verify_checkpoint(GOLDEN_PUBLIC_KEY, dict(checkpoint, signature=golden["signature"]))))
    for what, changed in {
        "finished false": dict(checkpoint, finished=False),
        "no finished": {k: v for k, v in checkpoint.items() if k != "finished"},
        "another seq": dict(checkpoint, seq=41),
        "another hash": dict(checkpoint, hash=_flip(checkpoint["hash"], 31)),
    }.items():
        checks.append(("the golden checkpoint with %s fails" % what, not verify_checkpoint(GOLDEN_PUBLIC_KEY, changed)))

    for name, ok in checks:
        print("%s  %s" % ("ok  " if ok else "FAIL", name))
    failed = sum(1 for _, ok in checks if not ok)
    print("%d passed, %d failed" % (len(checks) - failed, failed))
    return failed == 0


def main(argv):
    parser = argparse.ArgumentParser(description="Verify Ed25519 signatures and Parlour receipts.")
    parser.add_argument("--self-test", action="store_true", help="check RFC 8032 vectors and the golden receipt")
    parser.add_argument("--receipts", metavar="FILE", help="a JSON receipt or list of receipts")
    key = parser.add_mutually_exclusive_group()
    key.add_argument("--public-key", metavar="HEX", help="the server's 32-byte public key in hex")
    key.add_argument("--server", metavar="URL", help="take the keys from URL/.well-known/parlour-keys")
    args = parser.parse_args(argv)
    if args.self_test:
        return 0 if self_test() else 1
    if not args.receipts or not (args.public_key or args.server):
        parser.error("give --self-test, or --receipts FILE with --public-key HEX or --server URL")
    try:
        with open(args.receipts, encoding="utf-8") as f:
            receipts = json.load(f)
        keys = fetch_keys(args.server) if args.server else None
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("cannot check: %s" % e, file=sys.stderr)
        return 1
    if isinstance(receipts, dict):
        receipts = [receipts]
    if not isinstance(receipts, list) or not receipts:
        print("cannot check: %s holds no receipts" % args.receipts, file=sys.stderr)
        return 1
    failed = 0
    for receipt in receipts:
        if not isinstance(receipt, dict):
            ok, label = False, repr(receipt)
        else:
            public_key = args.public_key if keys is None else keys.get(receipt.get("key_id"), "")
            ok = bool(public_key) and verify_receipt(public_key, receipt)
            label = "game %s seq %s" % (receipt.get("game"), receipt.get("seq"))
        failed += not ok
        print("%s  %s" % ("ok  " if ok else "FAIL", label))
    print("%d passed, %d failed" % (len(receipts) - failed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
