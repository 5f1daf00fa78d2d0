//! Matches: deals of one game played one after another until a target is reached, as each
//! sheet closes (`docs/matches.md`; the rules are `parlour_domain::matches`).
//!
//! A match is one stored row, written when it is created and never changed, and its deals:
//! ordinary games, each linked to the match by a `table.match_deal` entry in its own log, and
//! each with an id derived from the match's id and the deal's number. Everything a match is
//! (who has played, who leads, whether it is over) follows from its deals' logs, so every
//! instance and the audit read it the same way, and nothing about a match is cached.
//!
//! When a deal ends, the commit that ends it writes an outbox message ([`MATCH_TOPIC`]) in the
//! same transaction, and whichever instance claims it deals the next game, if the match goes
//! on. The next deal's id is fixed by its number, so two instances working the same message
//! create it once: the second finds the id taken.
//!
//! The seats carry over with the deal passing to the left: each deal seats every player one
//! place further round. A player holding a token keeps it for the whole match (a deal's seat
//! credential is derived from the token's hash and the deal's id); a player holding an
//! account keeps their seat; a seat a bot plays at the end of a deal is the bot's in the next,
//! and its player may take it back as in any game. The clock and the options carry over.

use parlour_domain::matches::{self, DealEnd, MatchResult, Standings, Target};
use parlour_domain::table_events::{MatchLink, Offer, TableOutcome};
use serde::{Deserialize, Serialize};

use super::seating::account_text;
use super::*;
use crate::dto::{
    BotLevel, CreatedMatch, CreatedMatchSeat, MatchAudit, MatchCompetitor, MatchDealAudit,
    MatchDealRow, MatchStatus, MatchTarget, MatchView, NewHostedGame, NewMatch,
};
use crate::store::MatchRow;

/// What every match seat's token begins with: it opens the player's seat in every deal.
pub const MATCH_TOKEN_PREFIX: &str = "pm_";

/// The outbox topic of "a deal of a match has ended: deal the next one if the match goes on".
pub const MATCH_TOPIC: &str = "match.deal_ended";

/// What the match row keeps, as JSON: what the deals cannot say themselves.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct MatchRecord {
    /// The options every deal is created with.
    options: Value,
    /// What the match is played to.
    target: Target,
    /// The clock every deal is played on.
    clock: Option<TableEvent>,
    /// Who holds the seats.
    seats: MatchSeats,
    /// The creator's seed, from which every deal's is derived; `None`: the server draws each.
    seed: Option<String>,
    /// How each deal's seed is derived from `seed`. A row written before deals were keyed has
    /// none, and its match keeps dealing as it began ([`Derivation::Public`]), so that tables
    /// playing the same seed go on being dealt the same cards.
    #[serde(default)]
    derivation: Derivation,
}

/// How a match with a chosen seed derives each deal's seed from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Derivation {
    /// SHA-256 of `"parlour match seed\0"`, the seed and the deal's number: anyone who knew
    /// or guessed the match's seed (a dictionary, confirmed against deal 0's revealed seed)
    /// knew every later deal while it was played. Matches created before 2026-12-06 only.
    #[default]
    Public,
    /// HMAC-SHA256 under a key only the server holds (derived from its signing key) of the
    /// same message: the same seed still deals the same cards at every table of the server,
    /// but nobody, the creator included, can work out a deal before it is revealed at its end.
    Keyed,
}

/// The purpose the server's key for deal seeds is derived for ([`Signer::derive_key`]).
const DEAL_SEED_KEY: &str = "match deal seeds v1";

/// Who holds a match's seats.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum MatchSeats {
    /// Each player holds a token (`players`), or is a bot.
    Tokens {
        /// Each player, in the first deal's seat order.
        players: Vec<TokenSeat>,
    },
    /// Accounts hold the seats (`seats`), as in a hosted game; each deal after the first is
    /// seated as the one before ended.
    Hosted {
        /// The match's host.
        host: String,
        /// The host's name.
        name: String,
    },
}

/// One token-held player of a match.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenSeat {
    /// The name shown.
    name: String,
    /// SHA-256 of the player's match token.
    token_hash: String,
    /// The bot playing it from the start.
    bot: Option<BotLevel>,
}

/// The id of deal `deal` of match `id`: fixed by the two, so the next deal is created once
/// however many instances try, and a deal is found from its match without an index.
pub fn deal_id(id: Uuid, deal: u32) -> Uuid {
    let mut hash = Sha256::new();
    hash.update(b"parlour match deal\0");
    hash.update(id.as_bytes());
    hash.update(deal.to_be_bytes());
    let digest = hash.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_custom_bytes(bytes).into_uuid()
}

/// The stored credential of a match token in one deal: the deal's seat opens to the match's
/// token, and no deal's credential opens another's.
pub(super) fn deal_credential(token_hash: &str, game: Uuid) -> String {
    super::token_hash(&format!("{token_hash}:{game}"))
}

/// The match a game is a deal of, as its views and inbox rows say.
pub(super) fn deal_of(sitting: &Sitting) -> Option<crate::dto::MatchDealData> {
    let link = sitting.table.match_link()?;
    Some(crate::dto::MatchDealData {
        match_id: link.match_id.parse().ok()?,
        deal: link.deal,
    })
}

fn internal(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> ServiceError {
    Fault::new("a match could not be recorded", error).into()
}

/// Deal `deal`'s seed, from the creator's match seed, by `derivation` (`key`: the server's
/// key for deal seeds, [`DEAL_SEED_KEY`]).
fn deal_seed(derivation: Derivation, key: &[u8; 32], seed: &str, deal: u32) -> Result<String> {
    use hmac::Mac as _;
    let seed = Seed::from_hex(seed).map_err(|e| ServiceError::BadRequest(e.to_string()))?;
    let message = [
        b"parlour match seed\0".as_slice(),
        &seed.0,
        &deal.to_be_bytes(),
    ]
    .concat();
    Ok(match derivation {
        Derivation::Public => hex::encode(Sha256::digest(&message)),
        Derivation::Keyed => {
            let mut mac = <hmac::Hmac<Sha256> as hmac::Mac>::new_from_slice(key)
                .map_err(|e| internal(format!("the deal seeds' key: {e}")))?;
            mac.update(&message);
            hex::encode(mac.finalize().into_bytes())
        }
    })
}

/// Writes [`MATCH_TOPIC`] with the commit that ends a deal of a match.
pub struct MatchDeals;

impl AfterCommit for MatchDeals {
    fn durable_work(
        &self,
        game: &GameRecord,
        sitting: &Sitting,
        entries: &[StoredEvent],
    ) -> Vec<OutboxMessage> {
        if sitting.table.match_link().is_none() || sitting.is_over() {
            return Vec::new();
        }
        // Only a deal's own commits pay for this: the batch is applied to a copy of the table
        // to see whether it ends the game.
        let mut after = Sitting {
            rules: sitting.rules.clone_table(),
            table: sitting.table.clone(),
        };
        let batch: Vec<Recorded> = entries
            .iter()
            .map(|e| Recorded {
                kind: e.kind.clone(),
                data: e.data.clone(),
            })
            .collect();
        let Some(last) = entries.last() else {
            return Vec::new();
        };
        let stamp = Stamp {
            at: moment(last.at),
            mover: entries.first().and_then(|e| e.actor).map(Seat),
        };
        if after.apply_batch(&batch, stamp).is_err() || !after.is_over() {
            return Vec::new();
        }
        vec![OutboxMessage {
            topic: MATCH_TOPIC.into(),
            payload: game.id.to_string(),
            only_if_webhooks_of: None,
        }]
    }
}

/// A deal as the match reads it.
struct Deal {
    deal: u32,
    game: Uuid,
    link: Option<MatchLink>,
    status: Status,
    players: Vec<String>,
    /// How it ended, in the match's competitors' terms, once it has.
    end: Option<DealEnd>,
    ended_by: Option<String>,
    sides: Option<Vec<String>>,
    seating: Option<parlour_domain::table_events::Seating>,
    bots: Vec<Option<parlour_domain::bots::Level>>,
}

/// A match read from its row and its deals.
struct Read {
    row: MatchRow,
    record: MatchRecord,
    deals: Vec<Deal>,
    standings: Standings,
}

impl Parlour {
    /// Creates a match and deals its first game.
    pub async fn create_match(
        &self,
        caller: Option<&AccountCaller>,
        request: NewMatch,
    ) -> Result<CreatedMatch> {
        // The catalogue first: any name it does not hold is an unknown game, whatever it holds.
        let name: String = request.game.chars().take(text::MAX_GAME_ID_CHARS).collect();
        let engine = engine_for(&name)?;
        let game = engine.describe().id.to_string();
        if game != request.game {
            return Err(ServiceError::UnknownGame(name));
        }
        let count = match (&request.players, &request.seats) {
            (Some(players), None) => players.len(),
            (None, Some(seats)) => seats.len(),
            _ => return Err(neither()),
        };
        let rule = catalog::entry(&game)
            .ok_or_else(|| ServiceError::UnknownGame(game.clone()))?
            .matches;
        let target = match request.target {
            Some(target) => rule.check_target(&game, target.into()),
            None => Ok(rule.default_target(count)),
        }
        .map_err(|e| ServiceError::Setup(SetupError::Options(e.to_string())))?;
        let options = request
            .options
            .clone()
            .unwrap_or_else(|| Value::Object(Map::new()));
        text::check_strings("options", &options)?;
        if options.get("play_to").is_some_and(|v| !v.is_null()) {
            return Err(ServiceError::Setup(SetupError::Options(
                "a match is the series: leave play_to out and set the match's target".into(),
            )));
        }
        if let Some(seed) = &request.seed {
            Seed::from_hex(seed).map_err(|e| ServiceError::BadRequest(e.to_string()))?;
        }
        let clock = clocks::clock_entry(request.clock.as_ref())?;
        let id = Uuid::now_v7();
        let first = deal_id(id, 0);
        let link = TableEvent::MatchDeal {
            match_id: id.to_string(),
            deal: 0,
        };
        let key = self.signer.derive_key(DEAL_SEED_KEY);
        let seed = match &request.seed {
            Some(seed) => Some(deal_seed(Derivation::Keyed, &key, seed, 0)?),
            None => None,
        };
        let (seats, record, created) = match (request.players, request.seats) {
            (Some(players), _) => {
                let mut names = Vec::with_capacity(players.len());
                let mut seats = Vec::with_capacity(players.len());
                let mut tokens = Vec::with_capacity(players.len());
                for (i, p) in players.iter().enumerate() {
                    let field = format!("players[{i}].name");
                    let name = match (&p.name, p.bot) {
                        (Some(name), _) => text::player_name(&field, name)?,
                        (None, Some(level)) => bots::bot_name(level),
                        (None, None) => return Err(SeatingRefusal::Nameless(i).into()),
                    };
                    let token = format!("{MATCH_TOKEN_PREFIX}{}", hex::encode(random_bytes()?));
                    seats.push(TokenSeat {
                        name: name.clone(),
                        token_hash: token_hash(&token),
                        bot: p.bot,
                    });
                    tokens.push(CreatedMatchSeat {
                        seat: u8::try_from(i).unwrap_or(u8::MAX),
                        name: name.clone(),
                        token: Some(token),
                        bot: p.bot,
                    });
                    names.push(Player { name });
                }
                // The table is checked before the match is stored, so a refused match leaves
                // nothing behind.
                engine.open(&names, &options, RULES_VERSION)?;
                let record = MatchRecord {
                    options: options.clone(),
                    target,
                    clock: clock.clone(),
                    seats: MatchSeats::Tokens { players: seats },
                    seed: request.seed.clone(),
                    derivation: Derivation::Keyed,
                };
                (tokens, record, None)
            }
            (None, Some(plans)) => {
                let caller = caller.ok_or(ServiceError::AccountUnauthorized(
                    "a match whose seats accounts hold is created with an account token",
                ))?;
                let names: Vec<Player> = (0..plans.len())
                    .map(|i| Player {
                        name: format!("Seat {}", i + 1),
                    })
                    .collect();
                engine.open(&names, &options, RULES_VERSION)?;
                let record = MatchRecord {
                    options: options.clone(),
                    target,
                    clock: clock.clone(),
                    seats: MatchSeats::Hosted {
                        host: account_text(caller.account.id),
                        name: caller.account.name.clone(),
                    },
                    seed: request.seed.clone(),
                    derivation: Derivation::Keyed,
                };
                let hosted = NewHostedGame {
                    game: game.clone(),
                    seats: plans,
                    seed: seed.clone(),
                    options: Some(options.clone()),
                    clock: request.clock,
                    // A match's deals keep real time (a test clock is one game's).
                    test_clock: false,
                    // A match's deals are played by its own players, never strangers.
                    listing: None,
                };
                (Vec::new(), record, Some((caller, hosted)))
            }
            (None, None) => return Err(neither()),
        };
        // The first deal is founded before the match is stored: everything a request can get
        // wrong is refused by then, so a refused match stores nothing. (A crash in between
        // leaves a deal without its match, which plays as a lone game; `deal_next` says so.)
        let hosted = match created {
            Some((caller, hosted)) => Some(self.host_deal(caller, hosted, first, link).await?),
            None => {
                let MatchSeats::Tokens { players } = &record.seats else {
                    return Err(internal("a token match without its players"));
                };
                let founding = token_deal(&record, players, &game, 0, first, link, &[])?;
                self.found_game(Founding { seed, ..founding }).await?;
                None
            }
        };
        self.store
            .create_match(&MatchRow {
                id,
                game: game.clone(),
                record: serde_json::to_value(&record).map_err(internal)?,
                created_at: self.now(),
            })
            .await?;
        Ok(CreatedMatch {
            id,
            game,
            target: target.into(),
            first_deal: first,
            seats,
            hosted,
        })
    }

    /// Deals the next game of the match game `id` is a deal of, if `id` is over and the match
    /// goes on: what a [`MATCH_TOPIC`] message asks. Answers the new deal's id, if one was
    /// made now (not when another instance had made it first).
    pub async fn deal_next(&self, id: Uuid) -> Result<Option<Uuid>> {
        let (link, over) = self
            .with_game(id, |loaded| {
                (
                    loaded.sitting.table.match_link().cloned(),
                    loaded.sitting.is_over(),
                )
            })
            .await?;
        let (Some(link), true) = (link, over) else {
            return Ok(None);
        };
        let Ok(match_id) = Uuid::parse_str(&link.match_id) else {
            return Ok(None);
        };
        let read = match self.read_match(match_id).await {
            Ok(read) => read,
            // The match is stored just after its first deal: a first deal that ended before
            // then (bots in every seat) waits for it, as a message tried again later. One
            // whose match never came (a crash in between) plays as a lone game.
            Err(ServiceError::MatchNotFound(_)) => {
                let age = self.now() - self.record_of(id).await?.0.created_at;
                if age < chrono::Duration::hours(1) {
                    return Err(ServiceError::MatchNotFound(match_id));
                }
                tracing::warn!(game = %id, %match_id, "a deal whose match was never stored");
                return Ok(None);
            }
            Err(other) => return Err(other),
        };
        if read.standings.result.is_over() {
            return Ok(None);
        }
        let Some(last) = read.deals.last() else {
            return Ok(None);
        };
        if last.end.is_none() || last.deal != link.deal {
            // The deal that ended is not the latest: the next was made already.
            return Ok(None);
        }
        let deal = last.deal + 1;
        let next = deal_id(match_id, deal);
        let link = TableEvent::MatchDeal {
            match_id: match_id.to_string(),
            deal,
        };
        let game = read.row.game.clone();
        let record = &read.record;
        let mut founding = match &record.seats {
            MatchSeats::Tokens { players } => {
                token_deal(record, players, &game, deal, next, link, &last.bots)?
            }
            MatchSeats::Hosted { host, name } => {
                hosted_deal(record, host, name, last, &game, deal, next, link)?
            }
        };
        let key = self.signer.derive_key(DEAL_SEED_KEY);
        founding.seed = match &record.seed {
            Some(seed) => Some(deal_seed(record.derivation, &key, seed, deal)?),
            None => None,
        };
        match self.found_game(founding).await {
            Ok(_) => {
                // Clocks carry over, and so does a vacation: a player away when the deal is
                // dealt is away in it too.
                self.away_where_due(next).await?;
                Ok(Some(next))
            }
            // Another instance made it first.
            Err(ServiceError::Conflict) => Ok(None),
            Err(other) => Err(other),
        }
    }

    /// The match, as anyone may see it.
    pub async fn match_view(&self, id: Uuid) -> Result<MatchView> {
        let read = self.read_match(id).await?;
        view_of(&read)
    }

    /// Audits every deal of the match, and checks that the deals are the match's: each names
    /// the match and its own number, and seats the match's players one place further round.
    pub async fn audit_match(&self, id: Uuid) -> Result<MatchAudit> {
        let read = self.read_match(id).await?;
        let mut deals = Vec::with_capacity(read.deals.len());
        let mut failures = Vec::new();
        let first_players = read.deals.first().map(|d| d.players.len()).unwrap_or(0);
        let rotates = deal_rotates(&read.row.game)?;
        for deal in &read.deals {
            let audit = self.audit(deal.game).await?;
            let linked = deal
                .link
                .as_ref()
                .is_some_and(|link| link.match_id == id.to_string() && link.deal == deal.deal);
            if !linked {
                failures.push(format!(
                    "deal {} ({}) does not name this match and its number",
                    deal.deal, deal.game
                ));
            }
            if deal.players.len() != first_players {
                failures.push(format!("deal {} has another number of seats", deal.deal));
            }
            if let MatchSeats::Tokens { players } = &read.record.seats {
                let expected: Vec<&str> = (0..players.len())
                    .map(|seat| {
                        let player = matches::match_player(seat, deal.deal, players.len(), rotates);
                        players[player].name.as_str()
                    })
                    .collect();
                let seated: Vec<&str> = deal.players.iter().map(String::as_str).collect();
                if seated != expected {
                    failures.push(format!(
                        "deal {} seats {seated:?}, not the match's players one place further \
                         round ({expected:?})",
                        deal.deal
                    ));
                }
            }
            deals.push(MatchDealAudit {
                deal: deal.deal,
                game: deal.game,
                audit,
            });
        }
        let ok = failures.is_empty() && deals.iter().all(|d| d.audit.failures.is_empty());
        Ok(MatchAudit {
            id,
            ok,
            deals,
            failures,
            standings: view_of(&read)?,
        })
    }

    /// The match's row and every deal so far, and the standings they give.
    async fn read_match(&self, id: Uuid) -> Result<Read> {
        let row = self
            .store
            .match_row(id)
            .await?
            .ok_or(ServiceError::MatchNotFound(id))?;
        let record: MatchRecord = serde_json::from_value(row.record.clone())
            .map_err(|e| internal(format!("match {id} cannot be read: {e}")))?;
        let rotates = deal_rotates(&row.game)?;
        let mut deals: Vec<Deal> = Vec::new();
        for deal in 0..matches::MAX_DEALS {
            let game = deal_id(id, deal);
            let read = self
                .with_game(game, |loaded| read_deal(loaded, deal, rotates))
                .await;
            match read {
                Ok(read) => {
                    let ended = read.end.is_some();
                    deals.push(read);
                    if !ended {
                        break;
                    }
                }
                Err(ServiceError::GameNotFound(_)) => break,
                Err(other) => return Err(other),
            }
        }
        let competitors = deals
            .first()
            .map(|d| d.sides.as_ref().map_or(d.players.len(), Vec::len))
            .unwrap_or(0);
        let ends: Vec<DealEnd> = deals.iter().filter_map(|d| d.end.clone()).collect();
        let standings = matches::standings(record.target, competitors, &ends);
        Ok(Read {
            row,
            record,
            deals,
            standings,
        })
    }

    /// Creates a hosted deal (the first of a match whose seats accounts hold).
    async fn host_deal(
        &self,
        caller: &AccountCaller,
        request: NewHostedGame,
        id: Uuid,
        link: TableEvent,
    ) -> Result<crate::dto::HostedGame> {
        self.host_game_as(caller, request, id, vec![link]).await
    }
}

/// Both or neither of `players` and `seats`: a table that cannot be set up (each alone is a
/// well-formed request).
fn neither() -> ServiceError {
    ServiceError::Setup(SetupError::Options(
        "give either `players` (seats held by tokens) or `seats` (seats held by accounts), \
         not both or neither"
            .into(),
    ))
}

/// How the deal in `loaded` stands, for its match.
fn read_deal(loaded: &Loaded, deal: u32, rotates: bool) -> Deal {
    let sitting = &loaded.sitting;
    let rules = &sitting.rules;
    let players: Vec<String> = loaded
        .record
        .players
        .iter()
        .map(|p| p.name.clone())
        .collect();
    let n = players.len();
    let sides = rules.match_sides();
    let competitor = |seat: Seat| -> Option<usize> {
        let c = rules.competitor_of(seat)?;
        Some(if sides.is_some() {
            c
        } else {
            matches::match_player(c, deal, n, rotates)
        })
    };
    let (end, ended_by) = match sitting.table.ended() {
        Some(TableOutcome::Resignation { seat, .. }) => (
            Some(competitor(*seat).map_or(DealEnd::Void, DealEnd::Conceded)),
            Some("resignation"),
        ),
        Some(TableOutcome::Forfeit { seat, .. }) => (
            Some(competitor(*seat).map_or(DealEnd::Void, DealEnd::Conceded)),
            Some("forfeit"),
        ),
        Some(TableOutcome::Abandonment { .. }) => (Some(DealEnd::Void), Some("abandonment")),
        Some(TableOutcome::Abort) => (Some(DealEnd::Void), Some("abort")),
        None => match rules.match_points() {
            Some(points) if sides.is_some() => (Some(DealEnd::Scored(points)), Some("play")),
            Some(points) => {
                let by_player = (0..n)
                    .map(|p| {
                        let seat = matches::game_seat(p, deal, n, rotates);
                        points.get(seat).copied().unwrap_or(0)
                    })
                    .collect();
                (Some(DealEnd::Scored(by_player)), Some("play"))
            }
            None => (None, None),
        },
    };
    Deal {
        deal,
        game: loaded.record.id,
        link: sitting.table.match_link().cloned(),
        status: status_of(sitting),
        players,
        end,
        ended_by: ended_by.map(str::to_string),
        sides,
        seating: sitting.table.seating().cloned(),
        bots: (0..n)
            .map(|s| {
                u8::try_from(s)
                    .ok()
                    .and_then(|s| sitting.table.bot(Seat(s)))
            })
            .collect(),
    }
}

/// The founding of deal `deal` of a token-held match: the players seated `deal` places round,
/// each seat's credential derived from its player's token, the bots in their seats (`bots`:
/// who played each seat of the deal before, by that deal's seats).
#[allow(clippy::too_many_arguments)]
fn token_deal(
    record: &MatchRecord,
    players: &[TokenSeat],
    game: &str,
    deal: u32,
    id: Uuid,
    link: TableEvent,
    bots: &[Option<parlour_domain::bots::Level>],
) -> Result<Founding> {
    let rotates = deal_rotates(game)?;
    let n = players.len();
    let mut table = vec![link];
    let mut seated = Vec::with_capacity(n);
    let mut credentials = Vec::with_capacity(n);
    for seat in 0..n {
        let player = &players[matches::match_player(seat, deal, n, rotates)];
        let number = u8::try_from(seat)
            .map_err(|_| ServiceError::Setup(SetupError::Options("too many players".into())))?;
        let before = deal
            .checked_sub(1)
            .map(|previous| {
                let p = matches::match_player(seat, deal, n, rotates);
                matches::game_seat(p, previous, n, rotates)
            })
            .and_then(|s| bots.get(s).copied().flatten());
        let bot = before.or(player.bot.map(Into::into));
        if let Some(level) = bot {
            table.push(TableEvent::BotSeated {
                seat: Seat(number),
                level,
            });
        }
        credentials.push(SeatCredential {
            seat: number,
            name: player.name.clone(),
            token_hash: deal_credential(&player.token_hash, id),
        });
        seated.push(Player {
            name: player.name.clone(),
        });
    }
    table.extend(record.clock.clone());
    Ok(Founding {
        id,
        game: game.to_string(),
        players: seated,
        options: Some(record.options.clone()),
        seed: None,
        table,
        credentials,
        links: Vec::new(),
    })
}

/// The founding of deal `deal` of an account-held match: each account seated where the deal
/// before leaves it, one place further round, and each bot likewise.
#[allow(clippy::too_many_arguments)]
fn hosted_deal(
    record: &MatchRecord,
    host: &str,
    host_name: &str,
    last: &Deal,
    game: &str,
    deal: u32,
    id: Uuid,
    link: TableEvent,
) -> Result<Founding> {
    let rotates = deal_rotates(game)?;
    let n = last.players.len();
    let mut table = vec![
        link,
        TableEvent::Hosted {
            account: host.to_string(),
            name: host_name.to_string(),
        },
    ];
    let mut players = Vec::with_capacity(n);
    let mut links: Vec<Uuid> = Uuid::parse_str(host).into_iter().collect();
    for seat in 0..n {
        let player = matches::match_player(seat, deal, n, rotates);
        let before = matches::game_seat(player, last.deal, n, rotates);
        let number = Seat(u8::try_from(seat).unwrap_or(u8::MAX));
        let holder = last
            .seating
            .as_ref()
            .and_then(|s| s.seats.get(before))
            .and_then(|s| s.holder.clone());
        let bot = last.bots.get(before).copied().flatten();
        let name = match (&holder, bot) {
            (Some(holder), _) => holder.name.clone(),
            (None, Some(level)) => bots::bot_name(BotLevel::from(level)),
            (None, None) => last.players.get(before).cloned().unwrap_or_default(),
        };
        if let Some(holder) = &holder {
            table.push(TableEvent::SeatOffered {
                seat: number,
                to: Offer::Account {
                    account: holder.account.clone(),
                },
            });
            table.push(TableEvent::Seated {
                seat: number,
                account: holder.account.clone(),
                name: holder.name.clone(),
            });
            links.extend(Uuid::parse_str(&holder.account));
        }
        if let Some(level) = bot {
            table.push(TableEvent::BotSeated {
                seat: number,
                level,
            });
        }
        players.push(Player { name });
    }
    table.extend(record.clock.clone());
    links.sort();
    links.dedup();
    Ok(Founding {
        id,
        game: game.to_string(),
        players,
        options: Some(record.options.clone()),
        seed: None,
        table,
        credentials: Vec::new(),
        links,
    })
}

/// Whether `game`'s deal passes to the left from one deal to the next (its catalogue entry's
/// match rule; every stored match is of a catalogued game).
/// Whether a match of `game` rotates its seats between deals. A match is only ever made of a
/// game the catalogue holds, so one it does not hold is a fault, never a guess.
fn deal_rotates(game: &str) -> Result<bool> {
    catalog::entry(game)
        .map(|entry| entry.matches.deal_rotates())
        .ok_or_else(|| Fault::bare("a match names a game the catalogue does not hold").into())
}

/// The match as its view shows it.
fn view_of(read: &Read) -> Result<MatchView> {
    let game = &read.row.game;
    let rotates = deal_rotates(game)?;
    let latest = read.deals.last();
    let names: Vec<String> = match latest.and_then(|d| d.sides.clone()) {
        Some(sides) => sides,
        None => match latest {
            Some(deal) => {
                let n = deal.players.len();
                (0..n)
                    .map(|p| {
                        let seat = matches::game_seat(p, deal.deal, n, rotates);
                        deal.players.get(seat).cloned().unwrap_or_default()
                    })
                    .collect()
            }
            None => Vec::new(),
        },
    };
    let competitor = |c: usize| u8::try_from(c).unwrap_or(u8::MAX);
    let (status, winners, conceded_by) = match &read.standings.result {
        MatchResult::Playing => (MatchStatus::Playing, Vec::new(), None),
        MatchResult::Won { winners } => (MatchStatus::Finished, winners.clone(), None),
        MatchResult::Conceded { by, winners } => (
            MatchStatus::Conceded,
            winners.clone(),
            Some(competitor(*by)),
        ),
        MatchResult::Abandoned => (MatchStatus::Abandoned, Vec::new(), None),
    };
    let over = read.standings.result.is_over();
    let deals: Vec<MatchDealRow> = read
        .deals
        .iter()
        .map(|deal| {
            let n = deal.players.len();
            MatchDealRow {
                deal: deal.deal,
                game: deal.game,
                status: deal.status,
                seats: deal.sides.is_none().then(|| {
                    (0..n)
                        .map(|p| competitor(matches::game_seat(p, deal.deal, n, rotates)))
                        .collect()
                }),
                points: match &deal.end {
                    Some(DealEnd::Scored(points)) => Some(points.clone()),
                    _ => None,
                },
                ended_by: deal.ended_by.clone(),
            }
        })
        .collect();
    Ok(MatchView {
        id: read.row.id,
        game: game.clone(),
        target: MatchTarget::from(read.record.target),
        status,
        competitors: names
            .into_iter()
            .enumerate()
            .map(|(i, name)| MatchCompetitor {
                competitor: competitor(i),
                name,
                total: read.standings.totals.get(i).copied().unwrap_or(0),
            })
            .collect(),
        winners: winners.into_iter().map(competitor).collect(),
        conceded_by,
        current: latest.filter(|d| d.end.is_none() && !over).map(|d| d.game),
        deals,
        created_at: read.row.created_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = "0000000000000000000000000000000000000000000000000000000000000001";

    #[test]
    fn a_match_of_a_game_the_catalogue_does_not_hold_is_a_fault_not_a_guess() {
        assert!(matches!(
            deal_rotates("whist"),
            Err(ServiceError::Internal(_))
        ));
        assert!(deal_rotates("girl").is_ok());
    }

    #[test]
    fn a_match_stored_before_deals_were_keyed_keeps_dealing_as_it_began() {
        // A row as matches were stored before: no `derivation`.
        let old: MatchRecord = serde_json::from_value(json!({
            "options": {}, "target": {"kind": "points", "points": 50}, "clock": null,
            "seats": {"kind": "hosted", "host": "h", "name": "Host"}, "seed": SEED,
        }))
        .unwrap();
        assert_eq!(old.derivation, Derivation::Public);
        // Pinned: SHA-256("parlour match seed\0" ‖ seed ‖ 1), whatever the server's key.
        assert_eq!(
            deal_seed(old.derivation, &[7; 32], SEED, 1).unwrap(),
            "3d5d076d3cdc84eae8dca402fbacb723c24b25c6d2a436f0a12965150d7b4ca2"
        );
    }

    #[test]
    fn a_keyed_deal_seed_is_the_same_under_one_key_and_unknowable_without_it() {
        // Pinned: HMAC-SHA256 under the key of the same message.
        let keyed = deal_seed(Derivation::Keyed, &[7; 32], SEED, 1).unwrap();
        assert_eq!(
            keyed,
            "a32a4de6eda723a857f11d1ed098fe71f3f6bbf97e587401a07b46740f6431bd"
        );
        assert_eq!(
            keyed,
            deal_seed(Derivation::Keyed, &[7; 32], SEED, 1).unwrap()
        );
        assert_ne!(
            keyed,
            deal_seed(Derivation::Keyed, &[8; 32], SEED, 1).unwrap()
        );
        assert_ne!(
            keyed,
            deal_seed(Derivation::Keyed, &[7; 32], SEED, 2).unwrap()
        );
        assert_ne!(
            keyed,
            deal_seed(Derivation::Public, &[7; 32], SEED, 1).unwrap()
        );
        let new = MatchRecord {
            options: json!({}),
            target: Target::Points { points: 50 },
            clock: None,
            seats: MatchSeats::Hosted {
                host: "h".into(),
                name: "Host".into(),
            },
            seed: Some(SEED.into()),
            derivation: Derivation::Keyed,
        };
        let stored = serde_json::to_value(&new).unwrap();
        assert_eq!(
            stored["derivation"], "keyed",
            "a new match records its derivation"
        );
    }
}
