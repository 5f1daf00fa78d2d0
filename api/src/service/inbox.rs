//! An account's games: the inbox (`GET /v1/me/games`) and the account's stream of notices
//! (`GET /v1/me/stream`, and its long-poll twin `GET /v1/me/notices`).
//!
//! Both read the games the account was placed in (`account_games`, a hint) and let each
//! game's log decide what the account is asked. The stream follows the store's feed: each
//! notice carries the feed place of the commit it reports as its id, so a client that
//! reconnects with `Last-Event-ID` is given exactly the notices after it — from the feed
//! itself, which every instance reads alike — and then live ones from this instance's bus.

use std::collections::{HashSet, VecDeque};

use parlour_domain::table_events::Offer;
use tokio::sync::{broadcast, watch};

use super::seating::account_text;
use super::*;
use crate::dto::{
    Asked, BotLevel, Inbox, InboxGame, InboxLast, InboxSeat, Notice, NoticeKind, NoticePage,
    OnTimeout, TimeoutTaken,
};
use crate::store::FeedCursor;

/// What one commit tells one account (see [`Parlour::run_notices`]).
pub(super) struct Told {
    /// The game's inbox row just after the commit.
    pub(super) row: InboxGame,
    /// The notices.
    pub(super) kinds: Vec<NoticeKind>,
    /// What was done for the account's seat, if it timed out in this commit.
    pub(super) timed_out: Option<TimeoutTaken>,
}

/// What was done for `seat` when it timed out, from the entry that follows its
/// `table.timed_out` in the same commit: its default move (the seat's own move, carrying the
/// action made for it), a bot seated, or nothing, when the timeout ended the game.
fn timeout_taken(seat: u8, next: Option<&StoredEvent>) -> TimeoutTaken {
    let taken = |then, action, bot| TimeoutTaken {
        seat,
        then,
        action,
        bot,
    };
    match next {
        Some(entry) if entry.kind == "table.bot_seated" => {
            let level = entry
                .data
                .get("level")
                .and_then(|level| serde_json::from_value::<BotLevel>(level.clone()).ok());
            taken(OnTimeout::Bot, None, level)
        }
        Some(entry) if entry.actor == Some(seat) && entry.command.is_some() => {
            taken(OnTimeout::DefaultMove, entry.command.clone(), None)
        }
        _ => taken(OnTimeout::Forfeit, None, None),
    }
}

/// What `GET /v1/me/games` asks for.
#[derive(Debug, Clone, Copy)]
pub struct InboxQuery<'a> {
    /// Only games in this state.
    pub status: Option<Status>,
    /// Only games of this catalogue id.
    pub game: Option<&'a str>,
    /// The history after this finished game (a page's `next`): only finished games.
    pub cursor: Option<Uuid>,
    /// At most this many finished games.
    pub limit: u64,
}

/// How many feed entries one catch-up read takes.
const CATCH_UP: u64 = 500;

/// One message of an account's stream.
#[derive(Debug, Clone)]
pub enum AccountUpdate {
    /// Something happened in one of the account's games.
    Notice(Box<Notice>),
    /// Nothing happened for a while; the connection is still alive.
    KeepAlive,
}

/// The text of a feed place, as a notice's id: `<txid>-<position>`.
pub fn cursor_text(cursor: FeedCursor) -> String {
    format!("{}-{}", cursor.txid, cursor.position)
}

/// Reads a notice id back into its feed place.
pub fn parse_cursor(text: &str) -> Option<FeedCursor> {
    let (txid, position) = text.trim().split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(txid) || !digits(position) {
        return None;
    }
    Some(FeedCursor {
        txid: txid.parse().ok()?,
        position: position.parse().ok()?,
    })
}

impl Parlour {
    /// `GET /v1/me/games`: the account's games, what each asks of it now, most urgent first.
    /// `status` and `game` narrow the list.
    pub async fn inbox(&self, caller: &AccountCaller, query: InboxQuery<'_>) -> Result<Inbox> {
        let account = caller.account.id;
        let me = account_text(account);
        let wanted = |row: &InboxGame| {
            query.status.is_none_or(|s| s == row.status) && query.game.is_none_or(|g| g == row.game)
        };
        // The live part, whole and by urgency: the games not noted as over. Reading it never
        // touches a finished game's row, so a long history costs active play nothing.
        let mut games = Vec::new();
        if query.cursor.is_none() && query.status != Some(Status::Finished) {
            for id in self.store.live_account_games(account).await? {
                let Some(row) = self.row_of(id, &me).await? else {
                    continue;
                };
                if row.status == Status::Finished {
                    // Its mark was lost (or it ended before marks were kept): made now, so
                    // the history read next lists it, once.
                    self.note_finished(id).await;
                    continue;
                }
                if wanted(&row) {
                    games.push(row);
                }
            }
            games.sort_by_key(urgency);
        }
        // Then the history, newest first, a page at a time.
        let mut next = None;
        if query.status.is_none_or(|s| s == Status::Finished) {
            // One row past the page says whether there is a next one.
            let want = query.limit.saturating_add(1);
            let mut before = query.cursor;
            let mut history = Vec::new();
            'pages: loop {
                let ids = self
                    .store
                    .finished_account_games(account, before, want)
                    .await?;
                let full = ids.len() as u64 == want;
                for id in &ids {
                    before = Some(*id);
                    let Some(row) = self.row_of(*id, &me).await? else {
                        continue;
                    };
                    if wanted(&row) {
                        history.push(row);
                        if history.len() as u64 == want {
                            break 'pages;
                        }
                    }
                }
                if !full {
                    break;
                }
            }
            if history.len() as u64 == want {
                history.pop();
                next = history.last().map(|row| row.id);
            }
            // A game that ended between the two reads was listed live: once is enough.
            history.retain(|row| !games.iter().any(|live| live.id == row.id));
            games.extend(history);
        }
        Ok(Inbox {
            games,
            next: next.map(|id| id.to_string()),
        })
    }

    /// The account's inbox row in game `id`; `None` when the log does not place the account
    /// there, or the game was never stored (a hint written before a creation that failed:
    /// see `host_game`).
    async fn row_of(&self, id: Uuid, me: &str) -> Result<Option<InboxGame>> {
        let row = self
            .with_game(id, |loaded| {
                inbox_row(
                    &loaded.record,
                    &loaded.sitting,
                    loaded.version,
                    loaded.last.as_ref(),
                    me,
                )
            })
            .await;
        match row {
            Ok(row) => Ok(row),
            Err(ServiceError::GameNotFound(_)) => Ok(None),
            Err(other) => Err(other),
        }
    }

    /// Notes, after the commit that ended game `id`, that it leaves its players' live
    /// inboxes for their history. Best effort: a mark lost to a crash is made by the inbox
    /// itself when it next finds the game over.
    pub(super) async fn note_finished(&self, id: Uuid) {
        if let Err(error) = self
            .store
            .account_games_finished(id, self.clock.now())
            .await
        {
            tracing::warn!(game = %id, %error, "the game's end was not noted for the inbox");
        }
    }

    /// The account's inbox row for game `id` as it stood at `version`.
    async fn inbox_row_at(
        &self,
        id: Uuid,
        account: &str,
        version: u64,
    ) -> Result<Option<InboxGame>> {
        let at_head = self
            .with_game(id, |loaded| {
                (loaded.version == version).then(|| {
                    inbox_row(
                        &loaded.record,
                        &loaded.sitting,
                        version,
                        loaded.last.as_ref(),
                        account,
                    )
                })
            })
            .await?;
        if let Some(row) = at_head {
            return Ok(row);
        }
        // An older version (a notice read back after a reconnect): folded from the log.
        let (record, engine) = self.record_of(id).await?;
        let mut sitting = open_sitting(engine, &record)?;
        let events = self.store.events(id, 0, Some(version)).await?;
        readable(&events)?;
        fold(&mut sitting, &events)?;
        let last = LastEntry::of(&events);
        Ok(inbox_row(
            &record,
            &sitting,
            version,
            last.as_ref(),
            account,
        ))
    }

    /// The notices for `account` from the feed entries `commits` (in feed order): one per
    /// commit to one of its games.
    async fn notices_for(
        &self,
        account: Uuid,
        games: &mut HashSet<Uuid>,
        commits: &[Committed],
    ) -> Result<Vec<Notice>> {
        let me = account_text(account);
        let mut notices = Vec::new();
        let mut start = 0;
        while start < commits.len() {
            let (game, commit) = (commits[start].game, commits[start].commit);
            let mut end = start + 1;
            while end < commits.len() && commits[end].game == game && commits[end].commit == commit
            {
                end += 1;
            }
            let run = &commits[start..end];
            start = end;
            // A game the account has just been placed in: its hint is written before the
            // table event that places it, so it is there to be read now.
            let placing = run.iter().any(|c| {
                matches!(
                    c.kind.as_str(),
                    "table.hosted" | "table.seated" | "table.seat_offered"
                )
            });
            if !games.contains(&game) && placing {
                games.extend(self.store.account_games(account).await?);
            }
            if !games.contains(&game) {
                continue;
            }
            let Some(last) = run.last() else { continue };
            let kinds: Vec<&str> = run.iter().map(|c| c.kind.as_str()).collect();
            let Some(told) = self
                .run_notices(game, &me, run[0].seq, last.seq, &kinds)
                .await?
            else {
                continue;
            };
            notices.push(Notice {
                id: cursor_text(last.cursor()),
                game,
                version: last.seq,
                notices: told.kinds,
                timed_out: told.timed_out,
                row: told.row,
            });
        }
        Ok(notices)
    }

    /// What one commit to `game` — its entries `first..=last`, of these kinds — tells
    /// `account`: its inbox row just after, the notices, and what was done for its seat if
    /// it timed out; `None` when the game does not place the account. The account's stream
    /// and its webhooks both say exactly this.
    pub(super) async fn run_notices(
        &self,
        game: Uuid,
        account: &str,
        first: u64,
        last: u64,
        run: &[&str],
    ) -> Result<Option<Told>> {
        let Some(row) = self.inbox_row_at(game, account, last).await? else {
            return Ok(None);
        };
        let has = |kind: &str| run.contains(&kind);
        // A clock's facts name a seat: only that seat's player is told of them.
        let mut clock_facts = Vec::new();
        let mut timed_out = None;
        if let (Some(seat), true) = (row.seat, has("table.reminded") || has("table.timed_out")) {
            let count = last.saturating_sub(first) + 1;
            let entries = self
                .store
                .events(game, first.saturating_sub(1), Some(count))
                .await?;
            for (i, event) in entries.iter().enumerate() {
                if event.data.get("seat") == Some(&json!(seat)) {
                    clock_facts.push(event.kind.clone());
                    if event.kind == "table.timed_out" {
                        timed_out = Some(timeout_taken(seat, entries.get(i + 1)));
                    }
                }
            }
        }
        let mut kinds = Vec::new();
        // A reminder alone asks nothing new: the move was already asked for.
        let reminder_only = run.iter().all(|kind| *kind == "table.reminded");
        // A table still waiting for players asks no move yet (its founding is told, now).
        if row.asked == Asked::Move && row.status == Status::Active && !reminder_only {
            kinds.push(NoticeKind::YourTurn);
        }
        if clock_facts.iter().any(|k| k == "table.reminded") {
            kinds.push(NoticeKind::DeadlineNear);
        }
        if clock_facts.iter().any(|k| k == "table.timed_out") {
            kinds.push(NoticeKind::TimedOut);
        }
        if row.asked == Asked::Claim && has("table.seat_offered") {
            kinds.push(NoticeKind::Invited);
        }
        // The host's own seat, taken as the game is created, is no claim to tell of.
        if has("table.seated") && !has("table.hosted") {
            kinds.push(NoticeKind::SeatClaimed);
            if row.status == Status::Active {
                kinds.push(NoticeKind::Started);
            }
        } else if has("table.hosted")
            && row.status == Status::Active
            && row.deal_of.as_ref().is_some_and(|deal| deal.deal > 0)
        {
            // A match's next deal is dealt with every seat taken: it begins as it is made,
            // and each player is told, whoever is to act first.
            kinds.push(NoticeKind::Started);
        }
        if row.status == Status::Finished {
            kinds.push(NoticeKind::Ended);
        }
        Ok(Some(Told {
            row,
            kinds,
            timed_out,
        }))
    }

    /// Where the feed ends now: a stream without `Last-Event-ID` starts here.
    pub async fn feed_end(&self) -> Result<FeedCursor> {
        Ok(self.store.latest_position().await?)
    }

    /// A follower of `caller`'s notices after the feed place `after` (checked to be a place
    /// the feed has reached), with live commits from `commits`.
    async fn follower(
        self: Arc<Self>,
        caller: &AccountCaller,
        after: FeedCursor,
        bus: BusFeed,
        heartbeat: Duration,
    ) -> Result<Follower> {
        let end = self.store.latest_position().await?;
        if after > end {
            return Err(ServiceError::BadRequest(format!(
                "{:?} is beyond the end of the feed ({:?}): it is no notice id this server gave",
                cursor_text(after),
                cursor_text(end)
            )));
        }
        let games: HashSet<Uuid> = self
            .store
            .account_games(caller.account.id)
            .await?
            .into_iter()
            .collect();
        // Held for as long as the follower runs: revoking the token ends it (`revocations`).
        let hold = self.hold(caller.token);
        Ok(Follower {
            hold,
            service: self,
            account: caller.account.id,
            games,
            commits: bus.commits,
            reached: bus.reached,
            sent: after,
            caught_up: false,
            pending: VecDeque::new(),
            heartbeat,
        })
    }

    /// Every notice for `caller`'s account after the feed place `after` (the feed's end when
    /// `None`): first those already in the feed, then live ones from `commits` (this
    /// instance's bus, subscribed before the feed was read, so nothing falls between), with a
    /// `KeepAlive` after each quiet `heartbeat`. It ends, sending nothing more, once the
    /// caller's token is found revoked.
    pub async fn account_updates(
        self: Arc<Self>,
        caller: &AccountCaller,
        after: Option<FeedCursor>,
        bus: BusFeed,
        heartbeat: Duration,
    ) -> Result<impl futures_util::Stream<Item = AccountUpdate>> {
        let after = match after {
            Some(after) => after,
            None => self.feed_end().await?,
        };
        let follower = self.follower(caller, after, bus, heartbeat).await?;
        Ok(futures_util::stream::unfold(
            follower,
            |mut follower| async move {
                let update = follower.next().await?;
                Some((update, follower))
            },
        ))
    }

    /// The long-poll twin of [`Parlour::account_updates`]: the notices after `after` (the
    /// feed's end when `None`), waiting up to `wait` for the first if there is none yet;
    /// "revoked" as soon as the caller's token is found revoked.
    pub async fn notices_after(
        self: Arc<Self>,
        caller: &AccountCaller,
        after: Option<FeedCursor>,
        bus: BusFeed,
        wait: Duration,
        limit: u64,
    ) -> Result<NoticePage> {
        let after = match after {
            Some(after) => after,
            None => self.feed_end().await?,
        };
        let mut follower = self.follower(caller, after, bus, wait).await?;
        let mut notices = Vec::new();
        if let Some(AccountUpdate::Notice(first)) = follower.next().await {
            notices.push(*first);
            // Whatever else that read found, without waiting for more.
            notices.extend(follower.pending.drain(..));
        }
        if follower.hold.is_revoked() {
            return Err(Self::revoked_while_waiting());
        }
        // Those past the limit are read again from the last one given.
        notices.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        let next = match notices.last() {
            Some(last) => last.id.clone(),
            None => cursor_text(follower.sent),
        };
        Ok(NoticePage { notices, next })
    }
}

/// What an account's stream follows of this instance's bus: its commits, subscribed before
/// the feed is read, and how far it has handed them out.
pub struct BusFeed {
    /// Every commit from the subscription on (`Bus::subscribe`).
    pub commits: broadcast::Receiver<Committed>,
    /// The feed place up to which the bus has handed out every commit (`Bus::reached`).
    pub reached: watch::Receiver<FeedCursor>,
}

/// The state of one account's stream.
struct Follower {
    /// The caller's token, held while the stream runs.
    hold: Hold,
    service: Arc<Parlour>,
    account: Uuid,
    games: HashSet<Uuid>,
    commits: broadcast::Receiver<Committed>,
    reached: watch::Receiver<FeedCursor>,
    /// The feed place of the last entry read.
    sent: FeedCursor,
    /// Whether everything up to the bus's live commits has been read from the feed.
    caught_up: bool,
    pending: VecDeque<Notice>,
    heartbeat: Duration,
}

impl Follower {
    /// The next update; `None` ends the stream (the store failed, the bus stopped, or the
    /// token was revoked).
    async fn next(&mut self) -> Option<AccountUpdate> {
        use broadcast::error::{RecvError, TryRecvError};
        loop {
            if let Some(notice) = self.pending.pop_front() {
                return Some(AccountUpdate::Notice(Box::new(notice)));
            }
            if self.hold.is_revoked() {
                return None;
            }
            let batch = if self.caught_up {
                let waited = tokio::select! {
                    biased;
                    () = self.hold.revoked() => return None,
                    waited = tokio::time::timeout(self.heartbeat, self.commits.recv()) => waited,
                };
                let first = match waited {
                    Err(_) => return Some(AccountUpdate::KeepAlive),
                    Ok(Ok(commit)) => commit,
                    Ok(Err(RecvError::Lagged(_))) => {
                        // Too far behind the bus: read what was missed from the feed.
                        self.caught_up = false;
                        continue;
                    }
                    Ok(Err(RecvError::Closed)) => return None,
                };
                let mut batch = vec![first];
                loop {
                    match self.commits.try_recv() {
                        Ok(commit) => {
                            batch.push(commit);
                            continue;
                        }
                        Err(TryRecvError::Lagged(_)) => {
                            self.caught_up = false;
                            break;
                        }
                        Err(_) => {}
                    }
                    // The bus hands a look's commits out one by one and then says how far it
                    // reached: until it has, the rest of this commit may still be on its way,
                    // and one commit must make one notice.
                    let last = batch.last().map(Committed::cursor).unwrap_or_default();
                    if *self.reached.borrow() >= last {
                        break;
                    }
                    let more = tokio::time::timeout(Duration::from_secs(1), self.reached.changed());
                    if !matches!(more.await, Ok(Ok(()))) {
                        break;
                    }
                }
                // What the feed has already given is not given twice.
                batch.retain(|c| c.cursor() > self.sent);
                batch
            } else {
                let mut read = self
                    .service
                    .store
                    .committed_since(self.sent, CATCH_UP)
                    .await
                    .ok()?;
                if (read.len() as u64) < CATCH_UP {
                    self.caught_up = true;
                } else if let Some(last) = read.last() {
                    // A full read may have cut the last commit short: leave it for the next
                    // read, so that one commit is one notice (unless it fills a read alone).
                    let cut = (last.game, last.commit);
                    if let Some(keep) = read.iter().rposition(|c| (c.game, c.commit) != cut) {
                        read.truncate(keep + 1);
                    }
                }
                read
            };
            let Some(last) = batch.last() else { continue };
            let reached = last.cursor();
            let notices = self
                .service
                .notices_for(self.account, &mut self.games, &batch)
                .await
                .ok()?;
            // A notice of a commit made after the revocation was answered must not reach the
            // revoked device, even before the watcher looks.
            if !notices.is_empty() && !self.service.still_live(&self.hold).await {
                return None;
            }
            self.sent = self.sent.max(reached);
            self.pending.extend(notices);
        }
    }
}

/// Where a row sorts: my moves first (soonest deadline first, none last), then seats held for
/// me, then games where others act, then waiting games, then finished ones; newest first
/// within each.
fn urgency(row: &InboxGame) -> (u8, bool, Option<DateTime<Utc>>, std::cmp::Reverse<Uuid>) {
    let group = match (row.status, row.asked) {
        (_, Asked::Move) => 0,
        (_, Asked::Claim) => 1,
        (Status::Active, _) => 2,
        (Status::Waiting, _) => 3,
        (Status::Finished, _) => 4,
    };
    (
        group,
        row.deadline.is_none(),
        row.deadline,
        std::cmp::Reverse(row.id),
    )
}

/// The inbox's row for `account` in a game; `None` when the log does not place the account
/// there (a claim that lost its race).
fn inbox_row(
    record: &GameRecord,
    sitting: &Sitting,
    version: u64,
    last: Option<&LastEntry>,
    account: &str,
) -> Option<InboxGame> {
    let seating = sitting.table.seating()?;
    let seat = seating.seat_of(account).map(|s| s.0);
    let host = seating.host.account == account;
    let offered_seat = seating
        .seats
        .iter()
        .position(|s| {
            s.holder.is_none()
                && matches!(&s.offer, Some(Offer::Account { account: a }) if a == account)
        })
        .and_then(|i| u8::try_from(i).ok())
        .filter(|_| seat.is_none());
    if seat.is_none() && !host && offered_seat.is_none() {
        return None;
    }
    let status = status_of(sitting);
    let to_act: Vec<u8> = sitting.to_act().iter().map(|s| s.0).collect();
    let asked = match (seat, offered_seat) {
        // A seat its bot plays is not its player's move.
        (Some(seat), _) if to_act.contains(&seat) && sitting.table.bot(Seat(seat)).is_none() => {
            Asked::Move
        }
        (None, Some(_)) if status == Status::Waiting => Asked::Claim,
        _ => Asked::Nothing,
    };
    Some(InboxGame {
        id: record.id,
        game: record.game.clone(),
        status,
        version,
        seat,
        host,
        asked,
        deadline: seat
            .filter(|_| asked == Asked::Move)
            .and_then(|seat| sitting.deadline(Seat(seat)))
            .and_then(time_of),
        to_act,
        offered_seat,
        result: sitting.outcome(),
        deal_of: super::matches::deal_of(sitting),
        players: seats_of(record, sitting),
        created_at: record.created_at,
        last: last.map(|entry| InboxLast {
            seq: version,
            kind: entry.kind.clone(),
            seat: entry.actor,
            at: entry.at,
        }),
    })
}

/// Who plays each seat of a hosted game: the name it was taken under, or none while it is
/// open; and the bot playing it, if one does (as the game's view shows them).
fn seats_of(record: &GameRecord, sitting: &Sitting) -> Vec<InboxSeat> {
    let seating = sitting.table.seating();
    (0..record.players.len())
        .filter_map(|i| u8::try_from(i).ok())
        .map(|i| {
            let bot = sitting.table.bot(Seat(i));
            let holder = seating
                .and_then(|s| s.seats.get(usize::from(i)))
                .and_then(|s| s.holder.as_ref())
                .map(|h| h.name.clone());
            // A seat a bot was given at hosting has no holder: its name is the game's own.
            let name = holder.or_else(|| {
                bot.and_then(|_| record.players.get(usize::from(i)).map(|p| p.name.clone()))
            });
            InboxSeat {
                seat: i,
                name,
                bot: bot.map(|level| level.name().to_string()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_id_reads_back_as_the_feed_place_it_names_and_nothing_else_does() {
        let cursor = FeedCursor {
            txid: 812,
            position: 99,
        };
        assert_eq!(parse_cursor(&cursor_text(cursor)), Some(cursor));
        for bad in ["", "12", "-3", "3-", "a-1", "1-2-3", "1 -2", "+1-2"] {
            assert_eq!(parse_cursor(bad), None, "{bad:?}");
        }
    }
}
