#!/usr/bin/env python3
"""Independent verifier for a finished Parlour game.

Checks, without trusting any of Parlour's own code:

  seed      SHA-256 of the revealed seed (and, for chain format 2, the server's salt) is the
            commitment published when the game was created;
  chain     every event links to the one before, from the hash of the game's creation record;
            format 2: each event's seal is SHA-256(HMAC-SHA256(salt, seq) || canonical
            {command, data}) and its hash covers the seal, never the hidden parts themselves;
            format 1: its hash covers the event's whole canonical JSON; the log ends where the
            server recorded its end;
  shuffles  every recorded shuffle (any JSON object with exactly the keys "stream" and "order")
            is numbered as the protocol says and is the order the seed gives on that stream;
  receipts  each receipt kept from a move is signed by the server's key and names an event the
            log holds with that very hash (Ed25519 in tools/ed25519.py, beside this file);
  finished  the log ends the game (its last entry is the game's end, judged from the log itself
            wherever that needs no game rules), and the file's signed checkpoint, and every
            checkpoint kept from before, says the game ended at exactly this log's last event:
            a file cut short, or a finished game rolled back, fails here.

The protocol is described in docs/audit.md. Standard library only (Python 3.8+).

Usage:
  python3 tools/verify.py http://127.0.0.1:8080 GAME_ID       fetch the game file and verify it
  python3 tools/verify.py --save game.json URL GAME_ID        ... and keep the file
  python3 tools/verify.py game.json [--receipt R.json ...]    verify a saved file offline
  python3 tools/verify.py game.json --checkpoint C.json       ... against a checkpoint kept
  python3 tools/verify.py --self-test                         check against golden values

Exit status: 0 only if everything verifies; 1 if anything fails or cannot be checked.
"""

import argparse
import datetime
import hashlib
import hmac
import json
import os
import re
import sys
import urllib.error
import urllib.request

MASK32 = 0xFFFFFFFF
MASK64 = 0xFFFFFFFFFFFFFFFF
BUNDLE_FORMAT = "parlour-verify-bundle/1"
GAME_FILE_FORMAT = "parlour-game/2"
# Files saved before checkpoints: they verify as far as they go, but fail `finished`.
GAME_FILE_FORMATS = ("parlour-game/1", GAME_FILE_FORMAT)


class Unverifiable(Exception):
    """The input is not something that can be verified (not finished, malformed, ...)."""


# ---------------------------------------------------------------------------------------------
# JSON: read numbers exactly as written, write canonical JSON.


class RawNumber(str):
    """A non-integer JSON number, kept as the text the server wrote so it hashes byte for byte."""


def load_json(text):
    return json.loads(text, parse_float=RawNumber)


def canonical_json(value):
    """JSON with object keys sorted (by code point, i.e. UTF-8 byte order) at every depth, no
    white space, non-ASCII written as UTF-8, and only '"', '\\' and control characters
    escaped: the same text serde_json writes for a value with sorted keys."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, RawNumber):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        raise Unverifiable("a float that was not read by this tool: cannot write it exactly")
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(canonical_json(item) for item in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(
                json.dumps(key, ensure_ascii=False) + ":" + canonical_json(value[key])
                for key in sorted(value)
            )
            + "}"
        )
    raise Unverifiable("not a JSON value: %r" % (value,))


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------------------------------------
# ChaCha20 as rand_chacha 0.9's ChaCha20Rng uses it, and Parlour's shuffle.


def _rotl(x, n):
    return ((x << n) & MASK32) | (x >> (32 - n))


def chacha20_block(key_words, counter, stream):
    """One 64-byte ChaCha20 block as 16 little-endian u32 words.

    State: the 4 constants "expand 32-byte k", the 8 key words (the seed read as little-endian
    u32s), then a 64-bit block counter in words 12 (low) and 13 (high) and the 64-bit stream
    number in words 14 (low) and 15 (high). 20 rounds (10 double rounds), then the input state
    is added word by word."""
    state = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    state += list(key_words)
    state += [counter & MASK32, (counter >> 32) & MASK32, stream & MASK32, (stream >> 32) & MASK32]
    x = list(state)

    def quarter(a, b, c, d):
        x[a] = (x[a] + x[b]) & MASK32
        x[d] = _rotl(x[d] ^ x[a], 16)
        x[c] = (x[c] + x[d]) & MASK32
        x[b] = _rotl(x[b] ^ x[c], 12)
        x[a] = (x[a] + x[b]) & MASK32
        x[d] = _rotl(x[d] ^ x[a], 8)
        x[c] = (x[c] + x[d]) & MASK32
        x[b] = _rotl(x[b] ^ x[c], 7)

    for _ in range(10):
        quarter(0, 4, 8, 12)
        quarter(1, 5, 9, 13)
        quarter(2, 6, 10, 14)
        quarter(3, 7, 11, 15)
        quarter(0, 5, 10, 15)
        quarter(1, 6, 11, 12)
        quarter(2, 7, 8, 13)
        quarter(3, 4, 9, 14)
    return [(x[i] + state[i]) & MASK32 for i in range(16)]


class ChaCha20Rng:
    """`ChaCha20Rng::from_seed(seed)` then `set_stream(stream)`: a fresh generator, block
    counter 0. The output is the keystream as u32 words, block after block; `next_u64` takes
    the next two words, the first as the low half."""

    def __init__(self, seed, stream):
        if len(seed) != 32:
            raise ValueError("a seed is 32 bytes")
        self.key = [int.from_bytes(seed[i : i + 4], "little") for i in range(0, 32, 4)]
        self.stream = stream & MASK64
        self.counter = 0
        self.words = []
        self.index = 0

    def next_u32(self):
        if self.index >= len(self.words):
            self.words = chacha20_block(self.key, self.counter, self.stream)
            self.counter = (self.counter + 1) & MASK64
            self.index = 0
        word = self.words[self.index]
        self.index += 1
        return word

    def next_u64(self):
        low = self.next_u32()
        high = self.next_u32()
        return (high << 32) | low


def below(rng, n):
    """A uniform draw from 0..n-1, rejecting the top of the u64 range that would bias it."""
    rejected = ((MASK64 % n) + 1) % n
    bound = (-rejected) & MASK64
    while True:
        draw = rng.next_u64()
        if rejected == 0 or draw < bound:
            return draw % n


def shuffle_with_stream(seed, stream, items):
    """Sorts the items by their JSON text, then Fisher–Yates from the top down."""
    keyed = sorted(((canonical_json(item), item) for item in items), key=lambda pair: pair[0])
    order = [item for _, item in keyed]
    rng = ChaCha20Rng(seed, stream)
    for top in range(len(order) - 1, 0, -1):
        pick = below(rng, top + 1)
        order[top], order[pick] = order[pick], order[top]
    return order


# ---------------------------------------------------------------------------------------------
# The checks.


def time_text(at):
    """The `at` of an event as it is hashed: YYYY-MM-DDTHH:MM:SS.ffffffZ (UTC, microseconds)."""
    pattern = r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|\+00:00)"
    match = re.fullmatch(pattern, str(at))
    if not match:
        raise Unverifiable("event time %r is not a UTC RFC 3339 time" % (at,))
    fraction = (match.group(2) or "").ljust(9, "0")[:6]
    return "%s.%sZ" % (match.group(1), fraction)


def genesis_record(record):
    """The creation record the chain starts from, in the game's chain format."""
    base = {
        "game": record["game"],
        "id": record["id"],
        "options": record["options"],
        "players": [{"name": p["name"]} for p in record["players"]],
        "seed_commitment": record["seed_commitment"],
    }
    if record["chain"] >= 2:
        base["chain"] = record["chain"]
        base["rules_version"] = record["rules_version"]
    return base


def event_body(game_id, event):
    """Format 1: the event's whole canonical JSON is hashed."""
    return {
        "actor": event.get("actor"),
        "at": time_text(event["at"]),
        "command": event.get("command"),
        "data": event["data"],
        "game": game_id,
        "seq": event["seq"],
        "type": event["type"],
    }


def nonce(salt, seq):
    """Format 2: the secret that blinds event `seq`'s seal."""
    return hmac.new(salt, seq.to_bytes(8, "big"), hashlib.sha256).digest()


def seal(salt, event):
    """Format 2: the commitment to an event's data and the action behind it."""
    hidden = {"command": event.get("command"), "data": event["data"]}
    return sha256_hex(nonce(salt, event["seq"]) + canonical_json(hidden).encode("utf-8"))


def sealed_body(game_id, event, sealed):
    """Format 2: what the hash covers instead of the hidden parts. An event whose data has a
    shape of version 2 or later also binds that version, as `v`; version 1 (every event until
    a shape first changes) hashes without it."""
    body = {
        "actor": event.get("actor"),
        "at": time_text(event["at"]),
        "game": game_id,
        "sealed": sealed,
        "seq": event["seq"],
        "type": event["type"],
    }
    version = event.get("version", 1)
    if version != 1:
        body["v"] = version
    return body


# Table events: facts about the table, not the rules (docs/audit.md, "Table events"). Each is
# one entry of its own, with no command, whose data has exactly these fields.
TABLE_PREFIX = "table."
TABLE_EVENTS = {
    "table.note": {"text": str},
    "table.resigned": {"seat": int},
    "table.abandoned": {"reason": str},
    "table.hosted": {"account": str, "name": str},
    "table.listed": {"until": int},
    "table.seat_offered": {"seat": int, "to": dict},
    "table.offer_withdrawn": {"seat": int},
    "table.seated": {"seat": int, "account": str, "name": str},
    "table.aborted": {},
    "table.clock_set": {"control": dict, "on_timeout": str, "vacation": bool},
    "table.reminded": {"seat": int, "due": int},
    "table.timed_out": {"seat": int, "deadline": int},
    "table.vacation_began": {"seat": int, "until": int},
    "table.vacation_ended": {"seat": int},
    "table.bot_seated": {"seat": int, "level": str},
    "table.bot_left": {"seat": int},
    "table.match_deal": {"match": str, "deal": int},
}
# Fields a table event may hold beside its own, when the server that recorded it knew them:
# a bank clock set since issue 35 records the hours a move gets when its bank is empty.
OPTIONAL_TABLE_FIELDS = {
    "table.clock_set": {"empty_bank_hours": int},
}
# The bots a seat may be handed to (docs/bots.md).
BOT_LEVELS = ("random", "steady", "expert")
# Table events after which nothing more may be recorded: they end the game.
TABLE_ENDINGS = ("table.resigned", "table.abandoned", "table.aborted")
# The days per move a correspondence clock may give.
CORRESPONDENCE_DAYS = (1, 2, 3, 5, 7, 10, 14)
# The longest a bank clock may hold, in hours.
MAX_BANK_HOURS = 90 * 24


def micros(at):
    """An event's `at` as microseconds since the Unix epoch, as the clocks count time."""
    moment = datetime.datetime.strptime(time_text(at), "%Y-%m-%dT%H:%M:%S.%fZ")
    epoch = datetime.datetime(1970, 1, 1)
    return (moment - epoch) // datetime.timedelta(microseconds=1)


def has_table_fields(kind, data):
    """Whether `data` holds exactly the fields of table event `kind`, each of its type: its
    own fields, and any of the optional ones it may hold."""
    fields = TABLE_EVENTS.get(kind)
    if fields is None or not isinstance(data, dict):
        return False
    every = dict(fields, **OPTIONAL_TABLE_FIELDS.get(kind, {}))
    return set(fields) <= set(data) <= set(every) and all(
        isinstance(data[k], every[k]) and (every[k] is bool or not isinstance(data[k], bool))
        for k in data
    )


def clock_problem(control, on_timeout, empty_bank_hours=None):
    """Why a `table.clock_set` could not have been recorded, or None."""
    kind = control.get("kind")
    if empty_bank_hours is not None:
        if kind != "bank":
            return "only a bank clock gives time to a move when its bank is empty"
        if not 1 <= empty_bank_hours <= MAX_BANK_HOURS:
            return "an empty bank gives a move from 1 to %d hours" % MAX_BANK_HOURS
    numbers = {k: v for k, v in control.items() if k != "kind"}
    if any(not isinstance(v, int) or isinstance(v, bool) for v in numbers.values()):
        return "its control %r is not a clock" % (control,)
    if kind == "correspondence" and set(numbers) == {"days"}:
        if numbers["days"] not in CORRESPONDENCE_DAYS:
            return "a correspondence clock gives one of %s days" % (CORRESPONDENCE_DAYS,)
    elif kind == "bank" and set(numbers) == {"initial_hours", "increment_hours", "max_hours"}:
        initial, increment, most = numbers["initial_hours"], numbers["increment_hours"], numbers["max_hours"]
        if not (1 <= initial <= most <= MAX_BANK_HOURS and 0 <= increment <= most):
            return "a bank clock of %r cannot be kept" % (control,)
    else:
        return "its control %r is not a clock" % (control,)
    if on_timeout not in ("default_move", "bot", "forfeit"):
        return "no server applies the timeout policy %r" % (on_timeout,)
    return None


class Clock:
    """What the move clock's facts say, as far as they need no game rules: each reminder and
    timeout names the moment it fell due, which must not be after the time it was recorded;
    a timeout under `default_move` is followed at once by that seat's move, and under `bot` by
    a bot taking the seat."""

    def __init__(self, control, on_timeout, vacation, players):
        self.on_timeout = on_timeout
        self.vacation = vacation
        self.players = players
        self.default_for = None
        self.bot_for = None

    def check(self, report, seq, kind, data, at):
        seat = data.get("seat")
        if seat is not None and not 0 <= seat < self.players:
            report.fail("table", seq, "seat %d is not at this table" % seat)
            return False
        if kind == "table.clock_set":
            report.fail("table", seq, "the game's clock is already set")
        elif kind == "table.reminded" and data["due"] > at:
            report.fail("table", seq, "the reminder was recorded before it fell due")
        elif kind == "table.timed_out":
            if data["deadline"] > at:
                report.fail("table", seq, "the timeout was recorded before the seat's deadline")
            if self.on_timeout == "forfeit":
                return True
            if self.on_timeout == "bot":
                self.bot_for = (seat, at)
            else:
                self.default_for = (seat, at)
        elif kind == "table.vacation_began":
            if not self.vacation:
                report.fail("table", seq, "the game's host disallowed vacation")
            elif data["until"] <= at:
                report.fail("table", seq, "the vacation ends before it begins")
        return False

    def follows(self, report, event, at):
        """The entry after a timeout under `default_move` is the seat's move, at once; under
        `bot`, a steady bot taking the seat, at once."""
        if self.bot_for is not None:
            seat, when = self.bot_for
            self.bot_for = None
            if event.get("type") != "table.bot_seated" or event.get("data") != {"seat": seat, "level": "steady"} or at != when:
                report.fail("table", event.get("seq"), "a timeout under bot is followed at once by a steady bot taking the seat")
        if self.default_for is None:
            return
        seat, when = self.default_for
        self.default_for = None
        if event.get("actor") != seat or event.get("command") is None or at != when:
            report.fail("table", event.get("seq"), "a timeout under default_move is followed at once by the seat's default move")


# The shapes of a seat's offer (`table.seat_offered`'s `to`), by kind.
OFFERS = {"anyone": set(), "account": {"account"}, "invitation": {"code_hash"}}


class Bots:
    """Which seats bots play (docs/bots.md): one bot a seat at a time, taken back only from a
    seat that has one."""

    def __init__(self, players):
        self.levels = [None] * players

    def check(self, report, seq, kind, data):
        seat = data.get("seat")
        if kind not in ("table.bot_seated", "table.bot_left"):
            return
        if not 0 <= seat < len(self.levels):
            report.fail("table", seq, "seat %d is not at this table" % seat)
        elif kind == "table.bot_seated":
            if data["level"] not in BOT_LEVELS:
                report.fail("table", seq, "%r is not a bot" % (data["level"],))
            elif self.levels[seat] is not None:
                report.fail("table", seq, "a bot already plays seat %d" % seat)
            else:
                self.levels[seat] = data["level"]
        elif self.levels[seat] is None:
            report.fail("table", seq, "no bot plays seat %d" % seat)
        else:
            self.levels[seat] = None


class Seating:
    """Who sits where in a game an account hosts (docs/audit.md, "Table events")."""

    def __init__(self, host, players, bots):
        self.host = host
        self.holders = [None] * players
        self.offers = [None] * players
        self.moved = False
        self.listed = False
        # The table's bots, which fill a seat as a holder does.
        self.bots = bots

    def waiting(self):
        return any(h is None and b is None for h, b in zip(self.holders, self.bots.levels))

    def taken(self, seat):
        return self.holders[seat] is not None or self.bots.levels[seat] is not None

    def check(self, report, seq, kind, data):
        seat = data.get("seat")
        if seat is not None and not 0 <= seat < len(self.holders):
            report.fail("table", seq, "seat %d is not at this table" % seat)
            return
        if kind == "table.hosted":
            report.fail("table", seq, "the game already has a host")
        elif kind == "table.listed":
            if self.moved:
                report.fail("table", seq, "a table is listed only before its first move")
            elif self.listed:
                report.fail("table", seq, "the table is already listed")
            self.listed = True
        elif kind in ("table.seat_offered", "table.offer_withdrawn"):
            if not self.waiting():
                report.fail("table", seq, "seats are offered only while the game waits for players")
            elif self.taken(seat):
                report.fail("table", seq, "seat %d is taken" % seat)
            elif kind == "table.offer_withdrawn" and self.offers[seat] is None:
                report.fail("table", seq, "seat %d has no offer to withdraw" % seat)
            elif kind == "table.seat_offered":
                offer = data["to"]
                if set(offer) - {"kind"} != OFFERS.get(offer.get("kind"), {None}):
                    report.fail("table", seq, "%r is not an offer" % (offer,))
                self.offers[seat] = offer
            else:
                self.offers[seat] = None
        elif kind == "table.seated":
            account, offer = data["account"], self.offers[seat]
            if self.taken(seat):
                report.fail("table", seq, "seat %d is taken" % seat)
            elif account in self.holders:
                report.fail("table", seq, "this account already plays another seat")
            elif offer is None and (account != self.host or self.moved):
                report.fail("table", seq, "seat %d was not offered" % seat)
            elif offer is not None and offer.get("kind") == "account" and offer.get("account") != account:
                report.fail("table", seq, "seat %d was offered to another account" % seat)
            else:
                self.holders[seat], self.offers[seat] = account, None
        elif kind == "table.bot_seated":
            # A bot sitting down in an empty seat takes it off offer.
            self.offers[seat] = None
        elif kind == "table.bot_left" and self.holders[seat] is None:
            report.fail("table", seq, "seat %d has been a bot's from the start: nobody takes it back" % seat)
        elif kind == "table.aborted" and self.moved:
            report.fail("table", seq, "a game is aborted only before its first move")
        elif kind == "table.resigned" and self.waiting():
            report.fail("table", seq, "nobody resigns from a game that waits for players")


def check_table_event(report, event, players, ended):
    """The framework's rules for one table entry, as far as they need no game rules."""
    seq, kind, data = event.get("seq"), event.get("type"), event.get("data")
    fields = TABLE_EVENTS.get(kind)
    if fields is None:
        report.fail("table", seq, "%r is not a table event this verifier knows" % (kind,))
        return
    if event.get("command") is not None:
        report.fail("table", seq, "a table event records no action")
    if not has_table_fields(kind, data):
        report.fail("table", seq, "its data is not exactly %s" % sorted(fields))
        return
    if ended:
        report.fail("table", seq, "it follows the table event that ended the game")
    if kind == "table.resigned" and not 0 <= data["seat"] < players:
        report.fail("table", seq, "seat %d is not at this table" % data["seat"])
    for text in (data.get("text"), data.get("reason")):
        if text is not None and not 1 <= len(text) <= 500:
            report.fail("table", seq, "its text must be 1 to 500 characters")


def find_shuffles(value, path="data"):
    """Every object with exactly the keys `stream` and `order`, in document order."""
    if isinstance(value, dict):
        if set(value) == {"stream", "order"}:
            yield path, value
            return
        for key in sorted(value):
            yield from find_shuffles(value[key], "%s.%s" % (path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from find_shuffles(item, "%s[%d]" % (path, i))


class Report:
    def __init__(self):
        self.failures = []  # (check, seq or None, message)
        self.notes = []

    def fail(self, check, seq, message):
        self.failures.append((check, seq, message))

    def failed(self, check):
        return [f for f in self.failures if f[0] == check]


def from_bundle(bundle):
    """A `parlour-verify-bundle/1` (the view, the log and the audit, as an older verifier saved
    them) in the shape of a game file."""
    view, audit = bundle["view"], bundle["audit"]
    if view.get("status") != "finished":
        raise Unverifiable(
            "the game is not finished: its seed is still secret and its log still redacted"
        )
    return {
        "format": GAME_FILE_FORMAT,
        "record": {
            "id": view["id"],
            "game": view["game"],
            "players": [{"name": seat["name"]} for seat in view["seats"]],
            "options": view["options"],
            "seed_commitment": audit.get("seed_commitment"),
            "chain": audit.get("chain", 1),
            "rules_version": view.get("rules_version", 1),
        },
        "seed": audit.get("seed"),
        "salt": audit.get("salt"),
        "events": bundle["events"],
        "head": {"version": view.get("version"), "hash": audit.get("head_hash")},
        "receipts": [],
        "server_audit": {k: audit.get(k) for k in ("chain_ok", "replay_ok", "seed_ok")},
    }


def hex_bytes(value, what):
    if not isinstance(value, str) or not re.fullmatch(r"[0-9a-f]{64}", value):
        raise Unverifiable("%s is not 64 lowercase hex digits" % what)
    return bytes.fromhex(value)


def game_end(record, events, ended_at_table):
    """Whether the log ends the game, judged from the log alone, and how: (True, how),
    (False, why not), or (None, why it cannot be told without the game's rules)."""
    if ended_at_table:
        return True, "ended at the table (%s)" % events[-1].get("type")
    moves = [e for e in events if not str(e.get("type", "")).startswith(TABLE_PREFIX)]
    if not moves:
        return False, "the log holds no game event"
    last = moves[-1]
    kind, data = last.get("type"), last.get("data") or {}
    name = record.get("game")
    if name in ("girl", "car"):
        if kind == "game_over":
            return True, "game_over at event %s" % last.get("seq")
        return False, "its last game event is %s, not game_over" % kind
    if name == "british-birds":
        if kind != "game_over":
            return False, "its last game event is %s, not game_over" % kind
        target = (record.get("options") or {}).get("play_to")
        if target is None:
            return True, "game_over at event %s" % last.get("seq")
        totals = {}
        for event in moves:
            if event.get("type") == "game_over":
                for seat, points in enumerate((event.get("data") or {}).get("points") or []):
                    totals[seat] = totals.get(seat, 0) + points
        if any(total >= target for total in totals.values()):
            return True, "game_over at event %s, a total of %d reached" % (last.get("seq"), target)
        return False, "no total reached the series' %d at its last game_over" % target
    if name == "history-of-england" and (record.get("rules_version") or 1) >= 2:
        if kind == "turn_ended" and "next" not in data:
            return True, "the last turn_ended names no next seat (event %s)" % last.get("seq")
        return False, "its last game event is not a turn_ended that names no next seat"
    return None, "the end of %s (rules version %s) needs its rules to judge" % (name, record.get("rules_version"))


def check_checkpoint(report, checkpoint, game_id, events, known_keys, what):
    """A signed checkpoint says the game ended at event `seq` with hash `hash`: the log must
    end exactly there. Returns whether it verified and holds."""
    seq = checkpoint.get("seq") if isinstance(checkpoint, dict) else None
    if not isinstance(checkpoint, dict):
        report.fail("finished", None, "%s is not a checkpoint" % what)
        return False
    public_key = known_keys.get(checkpoint.get("key_id"))
    if public_key is None:
        report.fail("finished", seq, "%s is signed by key %r, which is not given" % (what, checkpoint.get("key_id")))
        return False
    if not ed25519().verify_checkpoint(public_key, checkpoint):
        report.fail("finished", seq, "%s: its signature does not verify" % what)
        return False
    if checkpoint.get("game") != game_id:
        report.fail("finished", seq, "%s is for game %s" % (what, checkpoint.get("game")))
        return False
    if seq < 1:
        report.fail("finished", seq, "%s names no event" % what)
        return False
    if seq > len(events):
        report.fail(
            "finished", seq,
            "%s says the game ended at event %d, but the log ends at event %d: events were removed "
            "(the log was cut short, or the finished game rolled back)" % (what, seq, len(events)),
        )
        return False
    if events[seq - 1].get("hash") != checkpoint.get("hash"):
        report.fail("finished", seq, "%s: the log's event %d has another hash than the signed end: the log was rewritten" % (what, seq))
        return False
    if seq < len(events):
        report.fail("finished", seq, "%s says the game ended at event %d, but the log goes on to event %d" % (what, seq, len(events)))
        return False
    return True


def verify(game, keys=None, extra_receipts=(), extra_checkpoints=()):
    """Runs every check on a game file; returns a Report."""
    report = Report()
    record, events = game["record"], game["events"]
    game_id = record["id"]
    chain = record.get("chain", 1)
    if chain not in (1, 2):
        raise Unverifiable("chain format %r is not one this verifier knows" % (chain,))
    report.notes.append(
        "game %s (%s), %d events, chain format %d" % (game_id, record.get("game"), len(events), chain)
    )
    seed = hex_bytes(game.get("seed"), "the revealed seed")
    salt = hex_bytes(game.get("salt"), "the revealed salt") if chain >= 2 else b""
    commitment = record.get("seed_commitment")
    if not isinstance(commitment, str):
        raise Unverifiable("the creation record gives no seed commitment")

    # (a) The seed is the one committed to at creation (with the server's salt, format 2).
    if sha256_hex(seed + salt) != commitment:
        report.fail("seed", None, "SHA-256 of the revealed seed%s is not the published commitment"
                    % (" and salt" if chain >= 2 else ""))

    # (b) The hash chain, from the creation record through every event. Each event is checked
    # on its own (its hash against its contents, its prev_hash against the stored hash before
    # it), so a changed event is named rather than everything after it.
    genesis = sha256_hex(canonical_json(genesis_record(record)).encode("utf-8"))
    prev = genesis
    for i, event in enumerate(events):
        seq = event.get("seq")
        if seq != i + 1:
            report.fail("chain", seq, "expected event %d at this position" % (i + 1))
        if "prev_hash" not in event:
            raise Unverifiable("event %s has no prev_hash: the log is not the finished one" % seq)
        if event["prev_hash"] != prev:
            what = "the genesis hash" if i == 0 else "the hash of event %d" % i
            report.fail("chain", seq, "its prev_hash is not %s" % what)
        if chain >= 2:
            sealed = seal(salt, event)
            if event.get("sealed") != sealed:
                report.fail("chain", seq, "its seal does not match its data and command")
            body = sealed_body(game_id, event, event.get("sealed"))
        else:
            body = event_body(game_id, event)
        expected = sha256_hex(event["prev_hash"].encode("utf-8") + canonical_json(body).encode("utf-8"))
        if event.get("hash") != expected:
            report.fail("chain", seq, "its hash does not match its contents")
        prev = event.get("hash")
    head = game.get("head") or {}
    if head.get("version") is not None and len(events) != head.get("version"):
        report.fail(
            "chain", None, "the log has %d events but the server recorded its end at event %s"
            % (len(events), head.get("version"))
        )
    if events and head.get("hash") is not None and head.get("hash") != events[-1].get("hash"):
        report.fail("chain", None, "the last event's hash is not the head hash the server recorded")

    # (c) Every shuffle: numbered (batch's first seq << 16) | k, k = 0, 1, ... within the batch,
    # and exactly the order the seed gives on that stream.
    shuffles = 0
    batch_first = None
    batch_streams = []

    def close_batch():
        ks = sorted(s & 0xFFFF for s, _ in batch_streams)
        if ks != list(range(len(ks))):
            report.fail(
                "shuffles", batch_first,
                "the batch from this event numbers its shuffles %s, not 0, 1, 2, ..." % ks,
            )

    ended = False
    players = len(record.get("players") or [])
    seating = None
    bots = Bots(players)
    clock = None
    moved = False
    previous_at = None
    for i, event in enumerate(events):
        seq = event.get("seq")
        is_table = str(event.get("type", "")).startswith(TABLE_PREFIX)
        # The clocks are judged by the recorded times, so those must never run backwards.
        at = micros(event.get("at"))
        if previous_at is not None and at < previous_at:
            report.fail("table", seq, "it is recorded as earlier than the event before it")
        previous_at = at
        if clock is not None:
            clock.follows(report, event, at)
        moved = moved or (not is_table and event.get("command") is not None)
        if ended and not is_table:
            report.fail("table", seq, "it follows the table event that ended the game")
        if not is_table and seating is not None:
            if seating.waiting():
                report.fail("table", seq, "a move while the game waited for players")
            seating.moved = True
        kind, data = event.get("type"), event.get("data")
        forfeit = False
        if is_table and has_table_fields(kind, data):
            if kind == "table.hosted" and seating is None:
                seating = Seating(data["account"], players, bots)
            elif seating is not None:
                seating.check(report, seq, kind, data)
            elif kind in ("table.listed", "table.seat_offered", "table.offer_withdrawn", "table.seated", "table.aborted"):
                report.fail("table", seq, "seats are offered and taken only in a hosted game")
            # After the seating's check, which asks who held the seat before this entry.
            bots.check(report, seq, kind, data)
            if kind == "table.clock_set" and clock is None:
                problem = clock_problem(data["control"], data["on_timeout"], data.get("empty_bank_hours"))
                if problem:
                    report.fail("table", seq, problem)
                if moved:
                    report.fail("table", seq, "a game's clock is set before its first move")
                clock = Clock(data["control"], data["on_timeout"], data["vacation"], players)
            elif clock is not None and kind.startswith("table.") and kind[6:] in (
                "clock_set", "reminded", "timed_out", "vacation_began", "vacation_ended"
            ):
                forfeit = clock.check(report, seq, kind, data, at)
            elif kind in ("table.reminded", "table.timed_out", "table.vacation_began", "table.vacation_ended"):
                report.fail("table", seq, "a clock's fact in a game with no clock")
        if is_table:
            # A table entry stands alone: it ends the batch before it and holds no shuffle.
            if i == 0:
                report.fail("table", seq, "the log opens with the deal, not a table event")
            check_table_event(report, event, players, ended)
            ended = ended or event.get("type") in TABLE_ENDINGS or forfeit
            if batch_first is not None:
                close_batch()
            batch_first, batch_streams = None, []
            if any(True for _ in find_shuffles(event.get("data"))):
                report.fail("shuffles", seq, "a table event holds no shuffle")
            continue
        if i == 0 or event.get("command") is not None or batch_first is None:
            if batch_first is not None:
                close_batch()
            batch_first, batch_streams = seq, []
        for path, shuffled in find_shuffles(event["data"]):
            shuffles += 1
            stream, order = shuffled["stream"], shuffled["order"]
            is_u64 = isinstance(stream, int) and not isinstance(stream, bool)
            if not is_u64 or not 0 <= stream <= MASK64:
                report.fail("shuffles", seq, "%s: stream %r is not a u64" % (path, stream))
                continue
            if not isinstance(order, list):
                report.fail("shuffles", seq, "%s: order is not a list" % path)
                continue
            batch_streams.append((stream, path))
            if stream >> 16 != batch_first:
                report.fail(
                    "shuffles", seq,
                    "%s: stream %d belongs to a batch starting at event %d, not %d"
                    % (path, stream, stream >> 16, batch_first),
                )
            if shuffle_with_stream(seed, stream, order) != order:
                report.fail(
                    "shuffles", seq,
                    "%s: the order recorded on stream %d is not the one the seed gives"
                    % (path, stream),
                )
    if batch_first is not None:
        close_batch()

    # (d) Receipts: each signed by a key of the server's, for this game, naming an event the
    # log holds with that very hash. A receipt past the log's end proves events were removed.
    receipts = list(game.get("receipts") or []) + list(extra_receipts)
    known_keys = dict(keys or {})
    for key in game.get("keys") or []:
        known_keys.setdefault(key.get("key_id"), key.get("public_key"))
    for receipt in receipts:
        seq = receipt.get("seq")
        public_key = known_keys.get(receipt.get("key_id"))
        if public_key is None:
            report.fail("receipts", seq, "signed by key %r, which is not given" % receipt.get("key_id"))
            continue
        if not ed25519().verify_receipt(public_key, receipt):
            report.fail("receipts", seq, "its signature does not verify")
            continue
        if receipt.get("game") != game_id:
            report.fail("receipts", seq, "it is for game %s" % receipt.get("game"))
        elif not isinstance(seq, int) or not 1 <= seq <= len(events):
            report.fail("receipts", seq, "the log ends at event %d, before this receipt's event: events were removed" % len(events))
        elif events[seq - 1].get("hash") != receipt.get("hash"):
            report.fail("receipts", seq, "the log's event %d has another hash than the one signed" % seq)
    # (e) The end: the log itself ends the game wherever that can be told without the rules,
    # and the server signed that it ended at exactly this log's last event (the file's
    # checkpoint, and any kept from before): a file cut short, with its head and receipts cut
    # to match, has no checkpoint of its own end.
    ending, how = game_end(record, events, ended)
    if ending is False:
        report.fail("finished", len(events), "the log does not end the game: %s" % how)
    checkpoint = game.get("checkpoint")
    if checkpoint is None:
        report.fail(
            "finished", None,
            "the file carries no signed checkpoint of the game's end, so a file cut short could "
            "not be told from a whole one (files saved before checkpoints: fetch it again)",
        )
    else:
        check_checkpoint(report, checkpoint, game_id, events, known_keys, "the file's checkpoint")
    kept = [c for c in extra_checkpoints if isinstance(c, dict) and c.get("game") == game_id]
    for n, saved in enumerate(kept, 1):
        check_checkpoint(report, saved, game_id, events, known_keys, "checkpoint %d kept from before" % n)
    report.ending = how
    report.checkpoints = (0 if checkpoint is None else 1) + len(kept)

    report.notes.append("%d shuffles" % shuffles)
    report.genesis, report.head, report.shuffles = genesis, prev, shuffles
    report.head_seq = len(events)
    report.receipts = len(receipts)
    report.table_events = sum(
        1 for e in events if str(e.get("type", "")).startswith(TABLE_PREFIX)
    )
    report.commitment = commitment
    report.server_audit = game.get("server_audit")
    return report


def ed25519():
    """tools/ed25519.py, beside this file: imported only when there are receipts to check."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import ed25519 as module  # noqa: E402  (standard library only, like this file)
    return module


def print_report(report, out=sys.stdout):
    print("Parlour verifier: " + report.notes[0], file=out)
    lines = {
        "seed": "the seed matches the commitment %s" % report.commitment,
        "chain": "genesis %s to head %s" % (report.genesis, report.head),
        "shuffles": "%d recorded shuffle(s) reproduced from the seed" % report.shuffles,
        "receipts": "%d signed receipt(s) match the log" % report.receipts,
        "table": "%d table event(s), each one the table could record there" % report.table_events,
        "finished": "the game ends at event %s (%s); %d signed checkpoint(s) say so" % (
            report.head_seq, report.ending, report.checkpoints),
    }
    for check in ("seed", "chain", "shuffles", "table", "receipts", "finished"):
        failed = report.failed(check)
        if not failed:
            print("  %-9s OK    %s" % (check, lines[check]), file=out)
        for _, seq, message in failed:
            where = "event %d" % seq if isinstance(seq, int) else "log"
            print("  %-9s FAIL  %s: %s" % (check, where, message), file=out)
    if report.server_audit:
        print(
            "  (the server's own audit, not relied on: chain_ok=%s replay_ok=%s seed_ok=%s)"
            % tuple(json.dumps(report.server_audit.get(k)) for k in ("chain_ok", "replay_ok", "seed_ok")),
            file=out,
        )
    if report.failures:
        print("NOT VERIFIED: %d problem(s)" % len(report.failures), file=out)
    else:
        print("VERIFIED", file=out)


# ---------------------------------------------------------------------------------------------
# Fetching.


def get_json(url):
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return load_json(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        body = error.read()[:300].decode("utf-8", "replace")
        raise Unverifiable("GET %s: HTTP %d %s" % (url, error.code, body))
    except urllib.error.URLError as error:
        raise Unverifiable("GET %s: %s" % (url, error.reason))


def fetch(base, game_id):
    """The finished game's file, and the server's public keys for its receipts."""
    base = base.rstrip("/")
    game = get_json("%s/v1/games/%s/file" % (base, game_id))
    if "keys" not in game:
        try:
            game["keys"] = get_json(base + "/.well-known/parlour-keys").get("keys", [])
        except Unverifiable:
            game["keys"] = []
    return game


# ---------------------------------------------------------------------------------------------
# Golden values, produced by Parlour's Rust code (domain/src/chance.rs tests).


def self_test():
    ok = True

    def check(name, got, want):
        nonlocal ok
        good = got == want
        ok = ok and good
        print("  %-40s %s" % (name, "OK" if good else "FAIL: got %r, want %r" % (got, want)))

    check(
        "commitment of seed [0; 32]",
        sha256_hex(bytes(32)),
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925",
    )
    # RFC 7539 §2.3.2 block function test vector (its 96-bit nonce layout mapped onto
    # rand_chacha's 64-bit counter and 64-bit stream): counter words 1 and 0x09000000.
    key = [int.from_bytes(bytes(range(i, i + 4)), "little") for i in range(0, 32, 4)]
    block = chacha20_block(key, 1 | (0x09000000 << 32), 0x4A000000)
    check("RFC 7539 block, first word", block[0], 0xE4E7F110)
    check(
        "shuffle: seed [0; 32], stream 1 << 16",
        shuffle_with_stream(bytes(32), 1 << 16, list(range(10))),
        [7, 9, 0, 8, 6, 5, 1, 2, 3, 4],
    )
    birds = ["owl", "robin", "wren", "jay", "kestrel", "puffin"]
    check(
        "shuffle: seed 0, 1, ..., 31, stream 7",
        shuffle_with_stream(bytes(range(32)), 7, birds),
        ["puffin", "owl", "wren", "jay", "kestrel", "robin"],
    )
    sample = '{"b": 1, "a": {"z": [1, {"y": 2, "x": "\\u00e9"}], "c": null}}'
    check(
        "canonical JSON",
        canonical_json(load_json(sample)),
        '{"a":{"c":null,"z":[1,{"x":"é","y":2}]},"b":1}',
    )
    # Chain format 2, pinned by api/src/chain.rs's tests.
    check(
        "nonce: salt [0; 32], seq 1",
        nonce(bytes(32), 1).hex(),
        "a4a11ce5fbe8f96bf3028035286c2c9274cd4259cbc224e37a73d971923903d3",
    )
    check(
        "seal: salt [0; 32], seq 1, data {x: 1}",
        seal(bytes(32), {"seq": 1, "data": {"x": 1}}),
        "11d36600345c1db3c3b15cea395fca1f418f1f57fe1cb15b0951feb21bc4d9fb",
    )
    check(
        "commitment: seed and salt [0; 32]",
        sha256_hex(bytes(64)),
        "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b",
    )
    # Seating: what the table admits, with no game rules needed.
    def seating_failures(entries):
        report = Report()
        seating = Seating("ann", 2, Bots(2))
        for seq, (kind, data) in enumerate(entries, start=2):
            seating.check(report, seq, kind, data)
        return len(report.failures)

    check(
        "seating: host sits, bea claims an open seat",
        seating_failures([
            ("table.seated", {"seat": 0, "account": "ann", "name": "Ann"}),
            ("table.seat_offered", {"seat": 1, "to": {"kind": "anyone"}}),
            ("table.seated", {"seat": 1, "account": "bea", "name": "Bea"}),
        ]),
        0,
    )
    check(
        "seating: an unoffered seat, a seat twice",
        seating_failures([
            ("table.seated", {"seat": 1, "account": "bea", "name": "Bea"}),
            ("table.seated", {"seat": 0, "account": "ann", "name": "Ann"}),
            ("table.seat_offered", {"seat": 0, "to": {"kind": "anyone"}}),
            ("table.seat_offered", {"seat": 1, "to": {"kind": "account", "account": "cat"}}),
            ("table.seated", {"seat": 1, "account": "bea", "name": "Bea"}),
        ]),
        3,
    )
    # Clocks: what the recorded times admit, with no game rules needed.
    check(
        "clock: times in micros",
        micros("1970-01-02T00:00:00.000001Z"),
        86_400_000_001,
    )
    check(
        "clock: controls that cannot be kept",
        [
            clock_problem({"kind": "correspondence", "days": 3}, "forfeit"),
            clock_problem({"kind": "correspondence", "days": 4}, "forfeit") is not None,
            clock_problem({"kind": "bank", "initial_hours": 48, "increment_hours": 1, "max_hours": 24}, "forfeit") is not None,
            clock_problem({"kind": "correspondence", "days": 3}, "bot"),
            clock_problem({"kind": "correspondence", "days": 3}, "bot_or_not") is not None,
        ],
        [None, True, True, None, True],
    )

    def clock_failures(entries):
        report = Report()
        clock = Clock({"kind": "correspondence", "days": 1}, "default_move", False, 2)
        for seq, (kind, data, at) in enumerate(entries, start=2):
            clock.check(report, seq, kind, data, at)
        return len(report.failures)

    check(
        "clock: a timeout at its deadline, a reminder when due",
        clock_failures([
            ("table.reminded", {"seat": 0, "due": 80}, 80),
            ("table.timed_out", {"seat": 0, "deadline": 100}, 100),
        ]),
        0,
    )
    check(
        "clock: early facts, a vacation the host disallowed",
        clock_failures([
            ("table.reminded", {"seat": 0, "due": 81}, 80),
            ("table.timed_out", {"seat": 1, "deadline": 101}, 100),
            ("table.vacation_began", {"seat": 1, "until": 900}, 100),
        ]),
        3,
    )

    def bot_failures(entries):
        report = Report()
        bots = Bots(2)
        for seq, (kind, data) in enumerate(entries, start=2):
            bots.check(report, seq, kind, data)
        return len(report.failures)

    check(
        "bots: seated, taken back, seated again",
        bot_failures([
            ("table.bot_seated", {"seat": 1, "level": "steady"}),
            ("table.bot_left", {"seat": 1}),
            ("table.bot_seated", {"seat": 1, "level": "expert"}),
        ]),
        0,
    )
    check(
        "bots: an unknown bot, two at once, none to take back, no such seat",
        bot_failures([
            ("table.bot_seated", {"seat": 0, "level": "grandmaster"}),
            ("table.bot_seated", {"seat": 1, "level": "steady"}),
            ("table.bot_seated", {"seat": 1, "level": "random"}),
            ("table.bot_left", {"seat": 0}),
            ("table.bot_seated", {"seat": 2, "level": "steady"}),
        ]),
        4,
    )
    print("SELF-TEST OK" if ok else "SELF-TEST FAILED")
    return ok


def load_file(path):
    """A game file (`GET /v1/games/{id}/file`) or an older verifier's bundle."""
    with open(path, encoding="utf-8") as f:
        loaded = load_json(f.read())
    if isinstance(loaded, dict) and loaded.get("format") in GAME_FILE_FORMATS:
        return loaded
    if isinstance(loaded, dict) and loaded.get("format") == BUNDLE_FORMAT:
        return from_bundle(loaded)
    raise Unverifiable("%s is neither a %s file nor a %s bundle" % (path, GAME_FILE_FORMAT, BUNDLE_FORMAT))


def main(argv):
    parser = argparse.ArgumentParser(
        description="Verify a finished Parlour game: seed commitment, hash chain, shuffles "
        "and signed receipts."
    )
    parser.add_argument("source", nargs="?", help="a game file, or the server's URL")
    parser.add_argument("game_id", nargs="?", help="the game's id, with a server URL")
    parser.add_argument("--log", metavar="FILE", help="verify a saved game file or bundle")
    parser.add_argument("--save", metavar="FILE", help="save the fetched game file to FILE")
    parser.add_argument("--receipt", metavar="FILE", action="append", default=[],
                        help="a receipt (JSON) kept from a move's answer; may be repeated")
    parser.add_argument("--checkpoint", metavar="FILE", action="append", default=[],
                        help="a signed checkpoint kept from before (JSON: one, a list, or a page "
                        "of GET /v1/checkpoints); may be repeated")
    parser.add_argument("--key", metavar="KEY_ID=HEX", action="append", default=[],
                        help="a server public key to check receipts with; may be repeated")
    parser.add_argument("--self-test", action="store_true", help="check against golden values")
    args = parser.parse_args(argv)

    if args.self_test:
        return 0 if self_test() else 1
    try:
        keys = {}
        for given in args.key:
            key_id, _, public = given.partition("=")
            keys[key_id] = public
        receipts = []
        for path in args.receipt:
            with open(path, encoding="utf-8") as f:
                loaded = load_json(f.read())
            receipts.extend(loaded if isinstance(loaded, list) else [loaded])
        checkpoints = []
        for path in args.checkpoint:
            with open(path, encoding="utf-8") as f:
                loaded = load_json(f.read())
            if isinstance(loaded, dict) and "checkpoints" in loaded:
                loaded = loaded["checkpoints"]
            checkpoints.extend(loaded if isinstance(loaded, list) else [loaded])
        path = args.log or (args.source if args.source and not args.game_id else None)
        if path:
            if args.game_id or args.save or (args.log and args.source):
                parser.error("a file takes no URL, game id or --save")
            game = load_file(path)
        else:
            if not (args.source and args.game_id):
                parser.error("give a game file, or a server URL and a game id")
            game = fetch(args.source, args.game_id)
            if args.save:
                with open(args.save, "w", encoding="utf-8") as f:
                    f.write(canonical_json(game) + "\n")
        report = verify(game, keys, receipts, checkpoints)
    except Unverifiable as error:
        print("CANNOT VERIFY: %s" % error)
        return 1
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        print("CANNOT VERIFY: malformed input (%s: %s)" % (type(error).__name__, error))
        return 1
    print_report(report)
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
