//! Open tables: the hosted games their hosts listed (`GET /v1/tables`), and joining one
//! (`POST /v1/games/{id}/join`), which takes its first seat open to anyone exactly as a claim
//! of that seat would.
//!
//! The list reads the index of listed tables (`ListingStore`, a hint written as the game is
//! stored) newest first, and lets each game's log decide: a table is shown only while it
//! waits for players, its listing (`table.listed`) has not ended in the game's own time, and
//! a seat is open to anyone. An index row whose game has begun, ended, stopped being listed or
//! does not exist is forgotten as it is met; ended listings are purged by housekeeping too.

use chrono::{DateTime, Utc};
use parlour_domain::table_events::{Offer, Sitting, TableRefusal};
use uuid::Uuid;

use super::clocks::clock_view;
use super::seating::{seating_view, SeatingRefusal};
use super::{moment, time_of, AccountCaller, Parlour, Result, ServiceError};
use crate::dto::{ClockKind, GameView, OpenTable, OpenTables, TimeControlPlan};
use crate::store::{ListingFilter, ListingStore};

/// The most index rows one page reads, whatever it finds: a page of tables that mostly
/// filled up since costs no more than this, and says where to go on.
const MOST_SCANNED: usize = 200;

/// What `GET /v1/tables` asks for.
#[derive(Debug, Clone, Copy)]
pub struct TablesQuery<'a> {
    /// Only this game.
    pub game: Option<&'a str>,
    /// Only tables of this many seats.
    pub players: Option<u8>,
    /// Only this kind of clock.
    pub clock: Option<ClockKind>,
    /// A page's `next`: the tables listed before it.
    pub cursor: Option<Uuid>,
    /// At most this many tables.
    pub limit: usize,
}

/// What the log says of a table the index lists.
enum Listed {
    /// Open: shown.
    Open(Box<OpenTable>),
    /// Listed, but no seat is open to anyone now (the host may offer one again).
    Full,
    /// Not listed any more, for good: begun, ended, its listing over, or no such game.
    Gone,
}

/// The open tables capability: the index it reads and the games it asks (wired in
/// `Parlour::tables`).
pub struct Tables<'a> {
    /// The index of listed tables.
    listings: &'a dyn ListingStore,
    /// The games, whose logs have the last word, and the seats' claims.
    games: &'a Parlour,
}

/// The seats of `sitting` anyone may take now, lowest first.
pub(super) fn open_seats(sitting: &Sitting) -> Vec<u8> {
    let Some(seating) = sitting.table.seating() else {
        return Vec::new();
    };
    seating
        .seats
        .iter()
        .enumerate()
        .filter(|(_, seat)| seat.holder.is_none() && matches!(seat.offer, Some(Offer::Anyone {})))
        .filter_map(|(seat, _)| u8::try_from(seat).ok())
        .collect()
}

impl<'a> Tables<'a> {
    /// The capability over its parts.
    pub(super) fn new(listings: &'a dyn ListingStore, games: &'a Parlour) -> Self {
        Tables { listings, games }
    }

    /// A page of open tables, newest first.
    pub async fn list(&self, query: TablesQuery<'_>) -> Result<OpenTables> {
        let filter = ListingFilter {
            game: query.game,
            players: query.players,
            clock: query.clock.map(ClockKind::as_text),
        };
        let now = self.games.now();
        let mut tables = Vec::new();
        let mut before = query.cursor;
        let mut scanned = 0;
        loop {
            let batch = (query.limit - tables.len()).clamp(10, 100);
            let ids = self
                .listings
                .listings(&filter, now, before, batch as u64)
                .await?;
            for &id in &ids {
                before = Some(id);
                scanned += 1;
                match self.listed(id).await? {
                    Listed::Open(table) => tables.push(*table),
                    Listed::Full => {}
                    Listed::Gone => self.listings.forget_listing(id).await?,
                }
                if tables.len() == query.limit || scanned >= MOST_SCANNED {
                    return Ok(OpenTables {
                        tables,
                        next: before.map(|id| id.to_string()),
                    });
                }
            }
            if ids.len() < batch {
                return Ok(OpenTables { tables, next: None });
            }
        }
    }

    /// The table `id` as the list shows it, by its log.
    async fn listed(&self, id: Uuid) -> Result<Listed> {
        let games = self.games;
        let shown = games
            .with_game(id, |loaded| {
                let sitting = &loaded.sitting;
                let Some(seating) = sitting.table.seating() else {
                    return Listed::Gone;
                };
                let Some(until) = seating.listed_until else {
                    return Listed::Gone;
                };
                let over = moment(games.game_now(sitting)) >= until;
                if over || sitting.is_over() || !sitting.table.waiting() || seating.moved {
                    return Listed::Gone;
                }
                let open = open_seats(sitting);
                let (Some(seating_view), Some(listed_until)) =
                    (seating_view(seating, &sitting.table), time_of(until))
                else {
                    return Listed::Gone;
                };
                if open.is_empty() {
                    return Listed::Full;
                }
                let record = &loaded.record;
                Listed::Open(Box::new(OpenTable {
                    id,
                    game: record.game.clone(),
                    name: loaded.engine.describe().name.to_string(),
                    players: u8::try_from(seating.seats.len()).unwrap_or(u8::MAX),
                    open_seats: open,
                    seating: seating_view,
                    clock: clock_view(sitting)
                        .map_or(TimeControlPlan::None {}, |clock| clock.control),
                    options: record.options.clone(),
                    created_at: record.created_at,
                    listed_until,
                    href: format!("/v1/games/{id}"),
                }))
            })
            .await;
        match shown {
            Ok(listed) => Ok(listed),
            // A row written just before a game that was then never stored.
            Err(ServiceError::GameNotFound(_)) => Ok(Listed::Gone),
            Err(error) => Err(error),
        }
    }

    /// Sits `caller`'s account in the first seat of the game `id` open to anyone, as a claim
    /// of that seat would (`Parlour::claim_seat`): listed or not, a table whose seat is open
    /// to anyone may be joined by anyone who has its id. Of two joins at once, the second
    /// takes the next open seat, or is told none is left.
    pub async fn join(&self, caller: &AccountCaller, id: Uuid) -> Result<GameView> {
        // Each lost race means another account took a seat, and a table has at most 8.
        for _ in 0..=8 {
            let seat = self
                .games
                .with_game(id, |loaded| {
                    let sitting = &loaded.sitting;
                    // Why there is nothing to join, as a claim would say it.
                    if sitting.table.seating().is_none() {
                        Err(ServiceError::TableRefused(TableRefusal::NotHosted))
                    } else if sitting.is_over() {
                        Err(ServiceError::TableRefused(TableRefusal::GameOver))
                    } else if !sitting.table.waiting() {
                        Err(ServiceError::TableRefused(TableRefusal::Begun))
                    } else {
                        open_seats(sitting)
                            .first()
                            .copied()
                            .ok_or(ServiceError::Seating(SeatingRefusal::NoOpenSeat))
                    }
                })
                .await??;
            match self.games.claim_seat(caller, id, seat, None).await {
                Err(ServiceError::TableRefused(
                    TableRefusal::SeatTaken(_) | TableRefusal::NotOffered(_),
                )) => continue,
                answer => return answer,
            }
        }
        Err(ServiceError::Conflict)
    }
}

/// When a listing of `hours` made at `now` ends.
pub(super) fn listing_end(now: DateTime<Utc>, hours: u8) -> DateTime<Utc> {
    now + chrono::Duration::hours(i64::from(hours))
}
