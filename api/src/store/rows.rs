//! What the two backends share: the text of the queries they both run (sqlx accepts `$1`
//! placeholders on SQLite too), and reading their rows back with checked conversions.
//!
//! The backends differ in column types (Postgres has `UUID`, `SMALLINT` and `TIMESTAMPTZ`
//! where SQLite has text and 64-bit integers), so each binds its own values and implements
//! [`Columns`]; everything above that is written once here.

use crate::scopes::Scopes;
use chrono::{DateTime, Utc};
use parlour_domain::{Player, Seed};
use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::{Column, Row, TypeInfo};
use uuid::Uuid;

use super::{
    narrow, parse_json, parse_time, salt_from, AccountRecord, AccountTokenRecord, Committed,
    GameRecord, IdempotentMove, OutboxItem, SignedInWith, StoreError, StoredEvent,
};

/// Writes a game's creation record: `$1` id … `$10` rules version.
pub const INSERT_GAME: &str = "INSERT INTO games (id, game, players, options, seed, seed_commitment, created_at, chain, salt, rules_version) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";

/// A game's creation record by id (`$1`).
pub const GAME: &str = "SELECT id, game, players, options, seed, seed_commitment, created_at, chain, salt, rules_version \
     FROM games WHERE id = $1";

/// A game's events after `$2`, at most `$3` of them.
pub const EVENTS: &str = "SELECT seq, type, actor, data, command, at, sealed, prev_hash, hash, event_version FROM events \
     WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3";

/// Where the store recorded the end of game `$1`'s log.
pub const HEAD: &str = "SELECT version, head_hash FROM game_heads WHERE game_id = $1";

/// The seat of game `$1` that a token hash (`$2`) belongs to: a lookup that leads with the
/// game, as every key of a game's rows does (docs/distribution.md).
pub const SEAT_FOR_TOKEN: &str =
    "SELECT game_id, seat FROM seats WHERE game_id = $1 AND token_hash = $2";

/// The game and seat a token hash (`$1`) belongs to, in whichever game: asked only when the
/// game's own lookup found nothing, to tell a token of another game from no token at all.
pub const GAME_FOR_TOKEN: &str = "SELECT game_id, seat FROM seats WHERE token_hash = $1 LIMIT 1";

/// The first answer to seat `$2`'s idempotency key `$3` in game `$1`.
pub const IDEMPOTENT_MOVE: &str =
    "SELECT fingerprint, version, created_at FROM idempotency_keys WHERE game_id = $1 AND seat = $2 AND key = $3";

/// Forgets seat `$2`'s idempotency key `$3` in game `$1` if it was recorded at or before `$4`.
pub const FORGET_IDEMPOTENCY_KEY: &str =
    "DELETE FROM idempotency_keys WHERE game_id = $1 AND seat = $2 AND key = $3 AND created_at <= $4";

/// Records a move's idempotency key: `$1` game, `$2` seat, `$3` key, `$4` fingerprint, `$5`
/// version, `$6` time.
pub const INSERT_IDEMPOTENCY_KEY: &str =
    "INSERT INTO idempotency_keys (game_id, seat, key, fingerprint, version, created_at) \
     VALUES ($1, $2, $3, $4, $5, $6)";

/// Moves game `$1`'s recorded head to version `$2`, hash `$3`. A writer that lost the race to
/// the same position leaves the head alone (and fails on the events' key), rather than
/// tripping the head's only-forward trigger.
pub const ADVANCE_HEAD: &str = "INSERT INTO game_heads (game_id, version, head_hash) VALUES ($1, $2, $3) \
     ON CONFLICT (game_id) DO UPDATE SET version = excluded.version, head_hash = excluded.head_hash \
     WHERE game_heads.version < excluded.version";

/// Marks game `$1`'s outbox message `$2` done at `$3`.
pub const COMPLETE_OUTBOX: &str =
    "UPDATE outbox SET done_at = $3 WHERE game_id = $1 AND id = $2 AND done_at IS NULL";

/// Makes game `$1`'s outbox message `$2` due again at `$3`, recording the error `$4`.
pub const RETRY_OUTBOX: &str = "UPDATE outbox SET available_at = $3, last_error = $4 \
     WHERE game_id = $1 AND id = $2 AND done_at IS NULL";

/// What a claim gives back of each message it claimed.
pub const OUTBOX_RETURNING: &str =
    "RETURNING id, game_id, topic, payload, attempts, created_at, last_error";

/// The messages a claim may take, as `o`: unfinished, of a topic starting with `$1` (any topic
/// when `$1` is null), due by `now`, and not behind an earlier unfinished message of their game
/// and topic that is not due (held by another claimer, or waiting for its retry). So one game's
/// work of a topic is done in the order of its commits, by one claimer at a time, however many
/// instances claim: a webhook fan-out of a later move never writes its messages before an
/// earlier move's. A claim takes them in `o.id` order, so one that takes only part of a game's
/// due messages takes the earliest, and the rest wait behind them.
pub fn outbox_claimable(now: &str) -> String {
    format!(
        "o.done_at IS NULL AND ($1 IS NULL OR substr(o.topic, 1, length($1)) = $1) \
         AND o.available_at <= {now} \
         AND NOT EXISTS (SELECT 1 FROM outbox e WHERE e.game_id = o.game_id AND e.id < o.id \
             AND e.topic = o.topic AND e.done_at IS NULL AND e.available_at > {now})"
    )
}

/// Records an account: `$1` id, `$2` name, `$3` time.
pub const INSERT_ACCOUNT: &str = "INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, $3)";

/// Records an account's token: `$1` id, `$2` account, `$3` name, `$4` hash, `$5` time, `$6`
/// how it was made, `$7` its scopes, `$8` the app it was granted to.
pub const INSERT_ACCOUNT_TOKEN: &str = "INSERT INTO account_tokens \
     (id, account_id, name, token_hash, created_at, signed_in_with, scopes, app) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";

/// [`INSERT_ACCOUNT_TOKEN`], only while the token `$9` of the same account is live: checked in
/// the statement that writes, so a caller revoked a moment ago mints nothing.
pub const MINT_ACCOUNT_TOKEN: &str = "INSERT INTO account_tokens \
     (id, account_id, name, token_hash, created_at, signed_in_with, scopes, app) \
     SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE EXISTS \
     (SELECT 1 FROM account_tokens WHERE id = $9 AND account_id = $2 AND revoked_at IS NULL)";

/// The account a live token's hash (`$1`) opens, with the token.
pub const ACCOUNT_FOR_TOKEN: &str = "SELECT t.id, t.account_id, t.name, t.token_hash, \
     t.created_at, t.signed_in_with, t.scopes, t.app, a.name AS account_name, \
     a.created_at AS account_created_at FROM account_tokens t \
     JOIN accounts a ON a.id = t.account_id WHERE t.token_hash = $1 AND t.revoked_at IS NULL";

/// Account `$1`'s live tokens, oldest first.
pub const ACCOUNT_TOKENS: &str = "SELECT id, account_id, name, token_hash, created_at, \
     signed_in_with, scopes, app FROM account_tokens \
     WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at, id";

/// The most token ids one [`live_account_tokens`] statement asks about (SQLite allows 32,766
/// parameters; Postgres 65,535).
pub const LIVE_TOKENS_PER_STATEMENT: usize = 500;

/// Which of the `count` token ids `$1`..`$count` are live: neither revoked nor gone.
pub fn live_account_tokens(count: usize) -> String {
    let places: Vec<String> = (1..=count).map(|i| format!("${i}")).collect();
    format!(
        "SELECT id FROM account_tokens WHERE revoked_at IS NULL AND id IN ({})",
        places.join(", ")
    )
}

/// Revokes account `$2`'s live token `$3` at `$4`, while the caller's token `$1` of the same
/// account is live (the caller may be the token revoked: the check reads the table as it was
/// before the statement).
pub const REVOKE_ACCOUNT_TOKEN: &str =
    "UPDATE account_tokens SET revoked_at = $4 \
     WHERE id = $3 AND account_id = $2 AND revoked_at IS NULL AND EXISTS \
     (SELECT 1 FROM account_tokens c WHERE c.id = $1 AND c.account_id = $2 AND c.revoked_at IS NULL)";

/// An account by id.
pub const ACCOUNT: &str = "SELECT id, name, created_at FROM accounts WHERE id = $1";

/// Notes that account `$1` takes part in game `$2` (from `$3`); nothing if it already does.
pub const LINK_ACCOUNT_GAME: &str =
    "INSERT INTO account_games (account_id, game_id, added_at) VALUES ($1, $2, $3) \
     ON CONFLICT (account_id, game_id) DO NOTHING";

/// The games account `$1` takes part in, newest first.
pub const ACCOUNT_GAMES: &str =
    "SELECT game_id FROM account_games WHERE account_id = $1 ORDER BY game_id DESC";

/// The games account `$1` takes part in that are not known to be over, newest first.
pub const LIVE_ACCOUNT_GAMES: &str = "SELECT game_id FROM account_games \
     WHERE account_id = $1 AND finished_at IS NULL ORDER BY game_id DESC";

/// At most `$3` of the finished games of account `$1` created before game `$2` (its id is a
/// UUIDv7), newest first.
pub const FINISHED_ACCOUNT_GAMES: &str = "SELECT game_id FROM account_games \
     WHERE account_id = $1 AND finished_at IS NOT NULL AND game_id < $2 \
     ORDER BY game_id DESC LIMIT $3";

/// Game `$1` ended at `$2`: every account's row of it leaves the live inbox.
pub const ACCOUNT_GAMES_FINISHED: &str = "UPDATE account_games SET finished_at = $2 \
     WHERE game_id = $1 AND finished_at IS NULL";

/// When game `$1` next needs the clock sweeper: `$2`.
pub const SET_ATTENTION: &str = "INSERT INTO game_attention (game_id, due_at) VALUES ($1, $2) \
     ON CONFLICT (game_id) DO UPDATE SET due_at = excluded.due_at";

/// Game `$1` needs the sweeper no more.
pub const CLEAR_ATTENTION: &str = "DELETE FROM game_attention WHERE game_id = $1";

/// Drops game `$1`'s note if it still says `$2`: a note written since (a newer look noted by
/// a commit or a creation) is kept.
pub const CLEAR_ATTENTION_READ: &str =
    "DELETE FROM game_attention WHERE game_id = $1 AND due_at = $2";

/// Games due by `$1`, after game `$2` in id order, at most `$3`, with what their notes say.
pub const ATTENTION_DUE: &str = "SELECT game_id, due_at FROM game_attention \
     WHERE due_at <= $1 AND game_id > $2 ORDER BY game_id LIMIT $3";

/// Clocked games (their logs hold a `table.clock_set`) not yet seen to end, after game `$1`
/// in id order, at most `$2`.
pub const CLOCKED_GAMES: &str = "SELECT e.game_id FROM events e \
     WHERE e.type = 'table.clock_set' AND e.game_id > $1 \
     AND NOT EXISTS (SELECT 1 FROM clocks_ended c WHERE c.game_id = e.game_id) \
     ORDER BY e.game_id LIMIT $2";

/// Clocked game `$1` was seen to end (at `$2`): its clocks never run again.
pub const CLOCKS_ENDED: &str = "INSERT INTO clocks_ended (game_id, ended_at) VALUES ($1, $2) \
     ON CONFLICT (game_id) DO NOTHING";

/// A vacation of account `$1` from `$2` to `$3`, unless one is under way at `$2`.
pub const INSERT_VACATION: &str = "INSERT INTO vacations (account_id, began_at, until) \
     SELECT $1, $2, $3 WHERE NOT EXISTS \
     (SELECT 1 FROM vacations WHERE account_id = $1 AND until > $2)";

/// Account `$1`'s vacations that end after `$2`, oldest first.
pub const VACATIONS: &str = "SELECT began_at, until FROM vacations \
     WHERE account_id = $1 AND until > $2 ORDER BY began_at";

/// Ends account `$1`'s vacation under way at `$2`, then.
pub const END_VACATION: &str = "UPDATE vacations SET until = $2 \
     WHERE account_id = $1 AND began_at <= $2 AND until > $2";

/// Games whose last entry is older than `$1`, after game `$2`, at most `$3`, with their
/// versions.
pub const IDLE_GAMES: &str = "SELECT game_id, max(seq) AS version FROM events \
     WHERE game_id > $2 GROUP BY game_id HAVING max(at) < $1 ORDER BY game_id LIMIT $3";

/// A sign-in code `$1` for account `$2`, asked for by its token `$3`, good until `$4`: only
/// while that token is live.
pub const INSERT_SIGN_IN_CODE: &str =
    "INSERT INTO sign_in_codes (code_hash, account_id, token_id, expires_at) \
     SELECT $1, $2, $3, $4 WHERE EXISTS \
     (SELECT 1 FROM account_tokens WHERE id = $3 AND account_id = $2 AND revoked_at IS NULL)";

/// Uses sign-in code `$1` at `$2`, if it is unused, unexpired and its token still live: the
/// account it signs in.
pub const REDEEM_SIGN_IN_CODE: &str = "UPDATE sign_in_codes SET used_at = $2 \
     WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $2 AND EXISTS \
     (SELECT 1 FROM account_tokens t WHERE t.id = sign_in_codes.token_id AND t.revoked_at IS NULL) \
     RETURNING account_id";

/// Reading a column the same way from either backend's row.
pub trait Columns {
    /// An integer column of any width, as `i64` (`None` when null).
    fn int(&self, name: &str) -> Result<Option<i64>, StoreError>;
    /// A text column.
    fn text(&self, name: &str) -> Result<Option<String>, StoreError>;
    /// A bytes column.
    fn bytes(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError>;
    /// A UUID column (Postgres `UUID`, SQLite text).
    fn uuid(&self, name: &str) -> Result<Uuid, StoreError>;
    /// A time column (Postgres `TIMESTAMPTZ`, SQLite RFC 3339 text).
    fn time(&self, name: &str) -> Result<DateTime<Utc>, StoreError>;
    /// A time column that may be null.
    fn maybe_time(&self, name: &str) -> Result<Option<DateTime<Utc>>, StoreError>;
    /// A boolean column (Postgres `BOOLEAN`, SQLite an integer, 0 for false).
    fn flag(&self, name: &str) -> Result<Option<bool>, StoreError>;
}

/// How Postgres binds an id: as a `UUID`. The store bodies written once for both backends take
/// this or [`sqlite_id`] as their id binder, and [`pg_time`] or [`super::time_text`] for times.
pub fn pg_id(id: Uuid) -> Uuid {
    id
}

/// How SQLite binds an id: as its text.
pub fn sqlite_id(id: Uuid) -> String {
    id.to_string()
}

/// How Postgres binds a time: as a `TIMESTAMPTZ`.
pub fn pg_time(at: &DateTime<Utc>) -> DateTime<Utc> {
    *at
}

fn required<T>(value: Option<T>, name: &str) -> Result<T, StoreError> {
    value.ok_or_else(|| StoreError::Corrupt(format!("{name} is null")))
}

/// A non-null integer column, narrowed to the type it stands for.
fn number<T: TryFrom<i64>>(row: &impl Columns, name: &str) -> Result<T, StoreError> {
    narrow(required(row.int(name)?, name)?, name)
}

fn text(row: &impl Columns, name: &str) -> Result<String, StoreError> {
    required(row.text(name)?, name)
}

impl Columns for PgRow {
    fn int(&self, name: &str) -> Result<Option<i64>, StoreError> {
        // sqlx decodes a Postgres integer only as its own width.
        let width = self.try_column(name)?.type_info().name().to_string();
        Ok(match width.as_str() {
            "INT2" => self.try_get::<Option<i16>, _>(name)?.map(i64::from),
            "INT4" => self.try_get::<Option<i32>, _>(name)?.map(i64::from),
            _ => self.try_get::<Option<i64>, _>(name)?,
        })
    }

    fn text(&self, name: &str) -> Result<Option<String>, StoreError> {
        Ok(self.try_get(name)?)
    }

    fn bytes(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.try_get(name)?)
    }

    fn uuid(&self, name: &str) -> Result<Uuid, StoreError> {
        Ok(self.try_get(name)?)
    }

    fn time(&self, name: &str) -> Result<DateTime<Utc>, StoreError> {
        Ok(self.try_get(name)?)
    }

    fn maybe_time(&self, name: &str) -> Result<Option<DateTime<Utc>>, StoreError> {
        Ok(self.try_get(name)?)
    }

    fn flag(&self, name: &str) -> Result<Option<bool>, StoreError> {
        Ok(self.try_get(name)?)
    }
}

impl Columns for SqliteRow {
    fn int(&self, name: &str) -> Result<Option<i64>, StoreError> {
        Ok(self.try_get(name)?)
    }

    fn text(&self, name: &str) -> Result<Option<String>, StoreError> {
        Ok(self.try_get(name)?)
    }

    fn bytes(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.try_get(name)?)
    }

    fn uuid(&self, name: &str) -> Result<Uuid, StoreError> {
        let text: String = self.try_get(name)?;
        Uuid::parse_str(&text).map_err(|e| StoreError::Corrupt(format!("{name} {text}: {e}")))
    }

    fn time(&self, name: &str) -> Result<DateTime<Utc>, StoreError> {
        let text: String = self.try_get(name)?;
        parse_time(&text)
    }

    fn maybe_time(&self, name: &str) -> Result<Option<DateTime<Utc>>, StoreError> {
        let text: Option<String> = self.try_get(name)?;
        text.as_deref().map(parse_time).transpose()
    }

    fn flag(&self, name: &str) -> Result<Option<bool>, StoreError> {
        Ok(self.int(name)?.map(|n| n != 0))
    }
}

/// A row of [`VACATIONS`].
pub fn vacation_from_row(row: &impl Columns) -> Result<super::VacationRecord, StoreError> {
    Ok(super::VacationRecord {
        began_at: row.time("began_at")?,
        until: row.time("until")?,
    })
}

/// A row of [`ATTENTION_DUE`].
pub fn attention_from_row(row: &impl Columns) -> Result<super::Attention, StoreError> {
    Ok(super::Attention {
        game: row.uuid("game_id")?,
        due: row.time("due_at")?,
    })
}

/// A row of [`GAME`].
pub fn game_from_row(row: &impl Columns) -> Result<GameRecord, StoreError> {
    let players: Vec<Player> = serde_json::from_str(&text(row, "players")?)
        .map_err(|e| StoreError::Corrupt(format!("players: {e}")))?;
    let seed: [u8; 32] = required(row.bytes("seed")?, "seed")?
        .try_into()
        .map_err(|_| StoreError::Corrupt("seed is not 32 bytes".into()))?;
    Ok(GameRecord {
        id: row.uuid("id")?,
        game: text(row, "game")?,
        players,
        options: parse_json(&text(row, "options")?)?,
        seed: Seed(seed),
        seed_commitment: text(row, "seed_commitment")?,
        created_at: row.time("created_at")?,
        chain: number(row, "chain")?,
        salt: salt_from(row.bytes("salt")?)?,
        rules_version: number(row, "rules_version")?,
    })
}

/// A row of [`EVENTS`].
pub fn event_from_row(row: &impl Columns) -> Result<StoredEvent, StoreError> {
    Ok(StoredEvent {
        seq: number(row, "seq")?,
        kind: text(row, "type")?,
        actor: row.int("actor")?.map(|a| narrow(a, "actor")).transpose()?,
        data: parse_json(&text(row, "data")?)?,
        command: row
            .text("command")?
            .as_deref()
            .map(parse_json)
            .transpose()?,
        at: row.time("at")?,
        sealed: row.text("sealed")?,
        prev_hash: text(row, "prev_hash")?,
        hash: text(row, "hash")?,
        version: number(row, "event_version")?,
    })
}

/// A row of [`HEAD`].
pub fn head_from_row(row: &impl Columns) -> Result<(u64, String), StoreError> {
    Ok((number(row, "version")?, text(row, "head_hash")?))
}

/// A row of [`ACCOUNT_FOR_TOKEN`]: the account and the token's id.
pub fn account_from_row(
    row: &impl Columns,
) -> Result<(AccountRecord, AccountTokenRecord), StoreError> {
    Ok((
        AccountRecord {
            id: row.uuid("account_id")?,
            name: text(row, "account_name")?,
            created_at: row.time("account_created_at")?,
        },
        account_token_from_row(row)?,
    ))
}

/// A row of [`ACCOUNT`].
pub fn account_record_from_row(row: &impl Columns) -> Result<AccountRecord, StoreError> {
    Ok(AccountRecord {
        id: row.uuid("id")?,
        name: text(row, "name")?,
        created_at: row.time("created_at")?,
    })
}

/// A row of [`ACCOUNT_TOKENS`].
pub fn account_token_from_row(row: &impl Columns) -> Result<AccountTokenRecord, StoreError> {
    Ok(AccountTokenRecord {
        id: row.uuid("id")?,
        account: row.uuid("account_id")?,
        name: text(row, "name")?,
        token_hash: text(row, "token_hash")?,
        created_at: row.time("created_at")?,
        signed_in_with: row
            .text("signed_in_with")?
            .map(|how| SignedInWith::from_name(&how))
            .transpose()?,
        // A token from before scopes could do everything, and still can.
        scopes: match row.text("scopes")? {
            None => Scopes::all(),
            Some(names) => Scopes::parse(&names).map_err(|name| {
                StoreError::Corrupt(format!("a token holds the unknown scope {name:?}"))
            })?,
        },
        app: row.text("app")?,
    })
}

/// A row of [`SEAT_FOR_TOKEN`].
pub fn seat_from_row(row: &impl Columns) -> Result<(Uuid, u8), StoreError> {
    Ok((row.uuid("game_id")?, number(row, "seat")?))
}

/// A row of [`IDEMPOTENT_MOVE`], for the seat and key it was asked for.
pub fn idempotent_from_row(
    row: &impl Columns,
    seat: u8,
    key: &str,
) -> Result<IdempotentMove, StoreError> {
    Ok(IdempotentMove {
        seat,
        key: key.to_string(),
        fingerprint: text(row, "fingerprint")?,
        version: number(row, "version")?,
        created_at: row.time("created_at")?,
    })
}

/// A feed entry: `position, txid_number, game_id, seq, type` (SQLite selects 0 for the txid).
pub fn committed_from_row(row: &impl Columns) -> Result<Committed, StoreError> {
    Ok(Committed {
        position: number(row, "position")?,
        txid: number(row, "txid_number")?,
        game: row.uuid("game_id")?,
        seq: number(row, "seq")?,
        kind: text(row, "type")?,
        commit: number(row, "commit_number")?,
    })
}

/// A row of [`OUTBOX_RETURNING`].
pub fn outbox_from_row(row: &impl Columns) -> Result<OutboxItem, StoreError> {
    Ok(OutboxItem {
        id: number(row, "id")?,
        game: row.uuid("game_id")?,
        topic: text(row, "topic")?,
        payload: text(row, "payload")?,
        attempts: number(row, "attempts")?,
        created_at: row.time("created_at")?,
        last_error: row.text("last_error")?,
    })
}

/// A count or position as the databases' signed 64-bit integer, refusing what does not fit.
pub fn wide(value: u64, what: &str) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::Corrupt(format!("{what} {value} is out of range")))
}

/// A limit as the databases' integer: "all" (or more than they can count) is the largest.
pub fn limit(value: Option<u64>) -> i64 {
    value.map_or(i64::MAX, |l| i64::try_from(l).unwrap_or(i64::MAX))
}
