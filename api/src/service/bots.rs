//! Bots in seats: a seat created for one, an empty hosted seat its host fills with one, a seat
//! its player hands over (and takes back), a seat that timed out under the `bot` policy.
//!
//! Who plays a seat is a table event in the game's log (`table.bot_seated`, `table.bot_left`),
//! so every instance, and the audit, knows it from the log alone. A bot's move takes the path
//! a person's does ([`Parlour::act_as`]): decided by the rules, chained, logged under the seat,
//! its player's own moves refused meanwhile. It is made after a commit, as durable work: every
//! commit at a table with a bot writes an outbox message ([`BOT_TOPIC`]) in the same
//! transaction, and whichever instance claims it plays the bot seats the game then waits for.
//! Each bot move is appended at the version it was decided from, so two instances working the
//! same message (a lease that ran out) cannot both move: one loses the race and finds the
//! game moved on.
//!
//! A bot sees only what its seat may see: [`parlour_domain::bots`] observes the table through
//! the seat's view and the log as redacted for it, and never reads the state itself. Its search
//! runs on a blocking thread, one at a time per instance, so it never holds up a request.
//! How long it thought must tell nobody about its hand: its search stops at a wall-clock
//! deadline, half the pace after the entry it answers, and plays its best move so far, and the
//! move is recorded exactly the pace after that entry (`docs/bots.md`, "How the server plays a
//! bot's move").

use std::sync::OnceLock;

use parlour_domain::bots::{self, BotError, Level, TimeUp};
use parlour_domain::engine::Table;
use parlour_domain::table_events::TableRefusal;
use tokio::sync::Semaphore;

use super::act::Mover;
use super::*;
use crate::dto::BotLevel;

/// The outbox topic of "a bot at this table may have a move to make".
pub const BOT_TOPIC: &str = "bot.turn";

/// How long after the entry it answers a bot's move is recorded, unless the operator sets
/// another: the search stops at half of it, longer than `expert`'s longest measured search
/// (`docs/bots.md`), so that every move takes the same time and none tells how long the bot
/// had to think about its hand. Zero: no pace, no deadline (each search runs to its budget and
/// its move is recorded when made), for tests and tournaments, not for play with people.
pub const DEFAULT_BOT_PACE: std::time::Duration = std::time::Duration::from_secs(1);

/// The most bots thinking at once in one process: leave the other core to the requests.
fn thinking() -> &'static Semaphore {
    static THINKING: OnceLock<Semaphore> = OnceLock::new();
    THINKING.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Semaphore::new(cores.saturating_sub(1).max(1))
    })
}

/// The name a seat created for a bot shows, unless it was given one: "Steady bot".
pub(super) fn bot_name(level: BotLevel) -> String {
    let name = Level::from(level).name();
    let mut letters = name.chars();
    match letters.next() {
        Some(first) => format!("{}{} bot", first.to_uppercase(), letters.as_str()),
        None => "Bot".into(),
    }
}

/// Writes [`BOT_TOPIC`] with every commit at a table a bot plays at (or comes to).
pub struct BotTurns;

impl BotTurns {
    /// The message, if the table a batch leaves has a bot.
    fn work(game: &GameRecord, bots_before: bool, entries: &[StoredEvent]) -> Vec<OutboxMessage> {
        let seated = entries
            .iter()
            .any(|entry| entry.kind == BOT_SEATED_KIND.as_str());
        if !bots_before && !seated {
            return Vec::new();
        }
        vec![OutboxMessage {
            topic: BOT_TOPIC.into(),
            payload: game.id.to_string(),
            only_if_webhooks_of: None,
        }]
    }
}

/// `table.bot_seated`, as the log types it.
static BOT_SEATED_KIND: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    TableEvent::BotSeated {
        seat: Seat(0),
        level: Level::Random,
    }
    .kind()
});

impl AfterCommit for BotTurns {
    fn durable_work(
        &self,
        game: &GameRecord,
        sitting: &Sitting,
        entries: &[StoredEvent],
    ) -> Vec<OutboxMessage> {
        Self::work(game, sitting.table.bots().next().is_some(), entries)
    }
}

/// A bot's turn found at the log's end: what it needs to choose, taken from one version.
struct Turn {
    seat: Seat,
    level: Level,
    version: u64,
    engine: &'static dyn Engine,
    rules: Box<dyn Table>,
}

impl Parlour {
    /// Plays one move for a bot seat that game `id` waits for, if there is one: what a
    /// [`BOT_TOPIC`] message asks. Answers whether a move was made. A bot that cannot find a
    /// move, or whose move the rules refuse, falls back to `random`; if even that fails the
    /// seat is left to its clock, and the fault is logged.
    pub async fn play_bot_turn(&self, id: Uuid) -> Result<bool> {
        let (turns, log, answered) = match self.bot_turns(id).await? {
            Some(found) => found,
            None => return Ok(false),
        };
        // How long a bot thinks depends on its hand (how many moves it weighs, how long its
        // playouts run). So the pace is counted from the entry the move answers, as everyone
        // saw it recorded: the search stops half-way through it and plays its best move so
        // far, and the move is recorded when the pace runs out, whatever the hand.
        let pace = (!self.bot_pace.is_zero()).then_some(self.bot_pace);
        let paced = pace.and_then(|pace| {
            let pace = chrono::Duration::from_std(pace).ok()?;
            Some((answered + pace / 2, answered + pace))
        });
        let deadline = paced.map(|(stop, _)| {
            let left = (stop - self.now()).to_std().unwrap_or_default();
            std::time::Instant::now() + left
        });
        for turn in turns {
            for level in [turn.level, Level::Random] {
                let Some(action) = self.think(&turn, level, log.clone(), deadline).await? else {
                    // Waits for another seat, or has nothing to do: try the next bot seat.
                    break;
                };
                if let Some((_, due)) = paced {
                    // A millisecond over: the timer and the clock may round apart, and a move
                    // made a hair before `due` would be recorded when made instead.
                    let wait = (due - self.now()).to_std().unwrap_or_default();
                    tokio::time::sleep(wait + std::time::Duration::from_millis(1)).await;
                }
                let request = Move {
                    action,
                    if_match: Some(turn.version),
                    idempotency_key: None,
                };
                let mover = Mover::Bot {
                    paced: paced.map(|(_, due)| due),
                };
                match self.act_as(id, turn.seat.0, request, mover).await {
                    Ok(_) => return Ok(true),
                    // The game moved on (another instance's bot, a person, a clock) or the seat
                    // changed hands: the commit that did it brings its own message.
                    Err(
                        ServiceError::Stale { .. }
                        | ServiceError::Conflict
                        | ServiceError::TableRefused(TableRefusal::NotBot(_)),
                    ) => return Ok(false),
                    Err(ServiceError::Refused(refused)) => {
                        tracing::error!(game = %id, seat = %turn.seat, level = level.name(), %refused,
                            "the rules refused a bot's move");
                    }
                    Err(other) => return Err(other),
                }
            }
        }
        Ok(false)
    }

    /// The bot seats game `id` waits for, its game log, and when the log's last entry (the one
    /// the bots answer) was recorded, at the log's end; `None` when no bot has a move to make.
    async fn bot_turns(
        &self,
        id: Uuid,
    ) -> Result<Option<(Vec<Turn>, Arc<Vec<Recorded>>, DateTime<Utc>)>> {
        let slot = self.slot(id);
        let mut guard = slot.game.lock().await;
        // Another instance may have moved: a bot decides only from the log's end.
        let loaded = self
            .ensure_loaded(id, &slot, &mut guard, Freshness::AtHead)
            .await?;
        let sitting = &loaded.sitting;
        if sitting.is_over() {
            return Ok(None);
        }
        let to_act = sitting.to_act();
        let turns: Vec<Turn> = sitting
            .table
            .bots()
            .filter(|(seat, _)| to_act.contains(seat))
            .map(|(seat, level)| Turn {
                seat,
                level,
                version: loaded.version,
                engine: loaded.engine,
                rules: sitting.rules.clone_table(),
            })
            .collect();
        if turns.is_empty() {
            return Ok(None);
        }
        let version = loaded.version;
        let test_clock = sitting.table.test_clock();
        drop(guard);
        let entries = self.store.events(id, 0, Some(version)).await?;
        // The pace runs in real time: on a test clock, the entry's time less the jumps.
        let Some(answered) = entries
            .last()
            .map(|entry| super::test_clock::unshifted(entry.at, test_clock))
        else {
            return Ok(None);
        };
        // The game's own entries alone: the bots observe the game, not the table around it.
        let log: Vec<Recorded> = entries
            .iter()
            .filter(|event| !TableEvent::is_table_kind(&event.kind))
            .map(recorded)
            .collect();
        Ok(Some((turns, Arc::new(log), answered)))
    }

    /// The move `level` chooses for the turn, on a blocking thread, its search stopping at
    /// `deadline` if there is one; `None` when the seat must wait for another or has nothing to
    /// do.
    async fn think(
        &self,
        turn: &Turn,
        level: Level,
        log: Arc<Vec<Recorded>>,
        deadline: Option<std::time::Instant>,
    ) -> Result<Option<Value>> {
        let _permit = thinking()
            .acquire()
            .await
            .map_err(|e| Fault::new("the bots' semaphore closed", e))?;
        let (engine, rules, seat) = (turn.engine, turn.rules.clone_table(), turn.seat);
        let seed = u64::from_le_bytes(random_bytes()?[..8].try_into().unwrap_or([0; 8]));
        let chosen = tokio::task::spawn_blocking(move || {
            let up = move || deadline.is_some_and(|d| std::time::Instant::now() >= d);
            let time_up = match deadline {
                Some(_) => TimeUp::when(&up),
                None => TimeUp::NEVER,
            };
            bots::play_until(engine, rules.as_ref(), seat, &log, level, seed, time_up)
        })
        .await
        .map_err(|e| Fault::new("a bot's thread failed", e))?;
        match chosen {
            Ok(action) => Ok(Some(action)),
            Err(BotError::Waits(_) | BotError::NothingToDo(_)) => Ok(None),
            Err(other) => Err(Fault::new(
                "a bot could not observe its seat",
                format!("{seat}: {other}"),
            )
            .into()),
        }
    }

    /// Hands `seat` to a `level` bot, for the seat's player (its seat token, or the account
    /// that holds it) or, for an empty seat of a game still waiting for players, its host.
    /// Answers with the game as the caller sees it. `caller` is who `token` was checked to be
    /// (`Parlour::authenticate`, with `games:play`): the host's account is looked at again
    /// only for a seat that is not the caller's.
    pub async fn hand_to_bot(
        &self,
        id: Uuid,
        caller: Caller,
        token: Option<&str>,
        seat: u8,
        level: BotLevel,
    ) -> Result<GameView> {
        let event = TableEvent::BotSeated {
            seat: Seat(seat),
            level: level.into(),
        };
        if caller == Caller::Seat(seat) {
            self.record_table_event(id, Some(seat), event).await?;
            return self.view(id, caller).await;
        }
        // Not the seat's player: only the host, filling an empty seat.
        let host = match token {
            None => {
                return Err(ServiceError::Unauthorized(
                    "handing a seat to a bot needs the seat's token, or its player's or the host's account token",
                ))
            }
            Some(token) if token.starts_with(ACCOUNT_TOKEN_PREFIX) => {
                self.accounts().authenticate(Some(token), Scope::GamesHost).await?
            }
            Some(_) => return Err(ServiceError::NotYourSeat(seat)),
        };
        self.record_table_event_if(id, None, event, None, |loaded| {
            let empty = loaded
                .sitting
                .table
                .seating()
                .and_then(|seating| seating.seats.get(usize::from(seat)))
                .is_some_and(|at| at.holder.is_none());
            if !empty {
                return Err(ServiceError::NotYourSeat(seat));
            }
            Self::require_host(&loaded.sitting, &host)
        })
        .await?;
        self.view(id, caller).await
    }

    /// Takes `seat` back from its bot, for the seat's player; answers with their view.
    pub async fn take_back_from_bot(&self, id: Uuid, caller: Caller, seat: u8) -> Result<GameView> {
        if caller != Caller::Seat(seat) {
            return Err(ServiceError::NotYourSeat(seat));
        }
        self.record_table_event(id, Some(seat), TableEvent::BotLeft { seat: Seat(seat) })
            .await?;
        self.view(id, caller).await
    }
}
