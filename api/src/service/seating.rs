//! Games hosted by accounts: seats held by accounts, offered by invitation or to anyone,
//! claimed once; the host's withdrawals and aborts; resignations.
//!
//! Everything here is a table event in the game's own log (`table.hosted`, `table.seated`,
//! `table.seat_offered`, `table.offer_withdrawn`, `table.aborted`, `table.resigned`), so who
//! sits where is decided by the log alone, on every instance, and replayed by the audit. An
//! invitation's code is a bearer secret like a token: the log keeps only its SHA-256, and the
//! host is shown the code once. Two claims of one seat race for the same position in the log:
//! one is recorded, the other finds the seat taken.

use parlour_domain::table_events::{Holder, Offer, Seating, TableRefusal, TableState};

use super::*;
use crate::dto::{
    AccountRef, BotLevel, HostedGame, HostedSeat, Invitation, NewHostedGame, OpenTo, SeatPlan,
    SeatingSeat, SeatingView,
};

/// The longest a table stays listed among the open tables: a week.
pub const MAX_LISTING_HOURS: u8 = 168;

/// What every invitation code begins with.
pub const INVITATION_PREFIX: &str = "inv_";

/// Why an account may not do what it asked at a hosted table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeatingRefusal {
    /// Only the host offers seats, withdraws offers and aborts.
    #[error("only the game's host may do this")]
    NotHost,
    /// The seat is offered by invitation, and no code or another code was brought.
    #[error("seat {0} is offered by invitation, and this is not its code")]
    WrongCode(u8),
    /// A new game places one account in at most one seat, and the host in at most one.
    #[error("an account plays at most one seat of a game (seats {0} and {1} name the same one)")]
    Twice(usize, usize),
    /// A seat is reserved for an account that does not exist.
    #[error("seats[{0}] names no account: {1}")]
    NoSuchAccount(usize, Uuid),
    /// `me` is not something to offer a seat to: the host claims a seat like anyone.
    #[error("a seat is offered to an account, by invitation or to anyone; to sit in it yourself, offer it to yourself")]
    OfferToMe,
    /// A person's seat of a new game was given no name.
    #[error("players[{0}].name is required (only a bot's seat may go without a name)")]
    Nameless(usize),
    /// A bot is not offered a seat: it is given one (`PUT /v1/games/{id}/seats/{seat}/bot`).
    #[error("a bot is not offered a seat but given it: PUT /v1/games/{{id}}/seats/{{seat}}/bot")]
    OfferToBot,
    /// A listed table is there for strangers to join, so it offers a seat to anyone.
    #[error("a listed table offers at least one seat to anyone (`{{\"kind\": \"anyone\"}}`)")]
    ListedWithoutOpenSeat,
    /// Joining takes a seat open to anyone, and the game has none (left).
    #[error("no seat of this game is open to anyone")]
    NoOpenSeat,
}

/// An account's id as the log writes it.
pub(super) fn account_text(id: Uuid) -> String {
    id.to_string()
}

fn account_ref(holder: &Holder) -> Option<AccountRef> {
    Some(AccountRef {
        id: holder.account.parse().ok()?,
        name: holder.name.clone(),
    })
}

fn open_to(offer: &Offer) -> OpenTo {
    match offer {
        Offer::Anyone {} => OpenTo::Anyone,
        Offer::Account { account } => match account.parse() {
            Ok(account) => OpenTo::Account { account },
            // The log only ever records ids it parsed; anything else reads as "by invitation"
            // (nobody can claim it without a code).
            Err(_) => OpenTo::Invitation,
        },
        Offer::Invitation { .. } => OpenTo::Invitation,
    }
}

/// The view's `seating` of a hosted game.
pub(super) fn seating_view(seating: &Seating, table: &TableState) -> Option<SeatingView> {
    Some(SeatingView {
        host: account_ref(&seating.host)?,
        seats: seating
            .seats
            .iter()
            .enumerate()
            .map(|(i, seat)| SeatingSeat {
                seat: u8::try_from(i).unwrap_or(u8::MAX),
                holder: seat.holder.as_ref().and_then(account_ref),
                open_to: seat.offer.as_ref().map(open_to),
                bot: u8::try_from(i)
                    .ok()
                    .and_then(|i| table.bot(Seat(i)))
                    .map(BotLevel::from),
            })
            .collect(),
        listed_until: seating.listed_until.and_then(time_of),
    })
}

/// The name a seat shows while nobody holds it.
fn empty_seat_name(seat: usize) -> String {
    format!("Seat {}", seat + 1)
}

/// A fresh invitation for `seat` of game `id`: its offer (with the code's hash) and the code.
fn new_invitation(id: Uuid, seat: u8) -> Result<(Offer, Invitation)> {
    let bytes = random_bytes()?;
    let code = format!("{INVITATION_PREFIX}{}", hex::encode(&bytes[..16]));
    let offer = Offer::Invitation {
        code_hash: token_hash(&code),
    };
    let invitation = Invitation {
        claim: format!("/v1/games/{id}/seats/{seat}/claim"),
        link: format!("/play/games/{id}?seat={seat}&invitation={code}"),
        code,
    };
    Ok((offer, invitation))
}

impl Parlour {
    /// Creates a game hosted by `caller`'s account, its seats filled as `request.seats` says:
    /// the host's own, held for named accounts, by invitation or open to anyone. It waits for
    /// players until every seat is taken.
    pub async fn host_game(
        &self,
        caller: &AccountCaller,
        request: NewHostedGame,
    ) -> Result<HostedGame> {
        self.host_game_as(caller, request, Uuid::now_v7(), Vec::new())
            .await
    }

    /// [`Parlour::host_game`] with the game's id chosen and `first` recorded before the table
    /// is hosted (a match's deal: its id and its `table.match_deal`).
    pub(super) async fn host_game_as(
        &self,
        caller: &AccountCaller,
        request: NewHostedGame,
        id: Uuid,
        first: Vec<TableEvent>,
    ) -> Result<HostedGame> {
        let host = &caller.account;
        let mut accounts: Vec<(usize, Uuid)> = Vec::new();
        for (i, plan) in request.seats.iter().enumerate() {
            let account = match plan {
                SeatPlan::Me {} => Some(host.id),
                SeatPlan::Account { account } => Some(*account),
                SeatPlan::Invitation {} | SeatPlan::Anyone {} | SeatPlan::Bot { .. } => None,
            };
            if let Some(account) = account {
                if let Some((first, _)) = accounts.iter().find(|(_, a)| *a == account) {
                    return Err(SeatingRefusal::Twice(*first, i).into());
                }
                accounts.push((i, account));
            }
        }
        let mut players = Vec::with_capacity(request.seats.len());
        let mut reserved = Vec::new();
        for (i, plan) in request.seats.iter().enumerate() {
            let name = match plan {
                SeatPlan::Me {} => host.name.clone(),
                SeatPlan::Account { account } => {
                    let named = self
                        .store
                        .account(*account)
                        .await?
                        .ok_or(SeatingRefusal::NoSuchAccount(i, *account))?;
                    reserved.push(named.id);
                    named.name
                }
                SeatPlan::Invitation {} | SeatPlan::Anyone {} => empty_seat_name(i),
                SeatPlan::Bot { level } => super::bots::bot_name(*level),
            };
            players.push(Player { name });
        }
        let mut table = first;
        table.push(TableEvent::Hosted {
            account: account_text(host.id),
            name: host.name.clone(),
        });
        // Listed for strangers to find: so it must offer them a seat.
        let listed_until = match request.listing {
            Some(listing) => {
                if !(1..=MAX_LISTING_HOURS).contains(&listing.hours) {
                    return Err(ServiceError::BadRequest(format!(
                        "`listing.hours` must be between 1 and {MAX_LISTING_HOURS}"
                    )));
                }
                if !request
                    .seats
                    .iter()
                    .any(|plan| matches!(plan, SeatPlan::Anyone {}))
                {
                    return Err(SeatingRefusal::ListedWithoutOpenSeat.into());
                }
                let until = super::tables::listing_end(self.now(), listing.hours);
                table.push(TableEvent::Listed {
                    until: moment(until),
                });
                Some(until)
            }
            None => None,
        };
        let mut seats = Vec::with_capacity(request.seats.len());
        for (i, plan) in request.seats.iter().enumerate() {
            // The engine has accepted no more than 8 seats yet, but will refuse more below.
            let seat = u8::try_from(i)
                .map_err(|_| ServiceError::Setup(SetupError::Options("too many seats".into())))?;
            let mut hosted = HostedSeat {
                seat,
                holder: None,
                open_to: None,
                invitation: None,
                bot: None,
            };
            match plan {
                SeatPlan::Me {} => {
                    table.push(TableEvent::Seated {
                        seat: Seat(seat),
                        account: account_text(host.id),
                        name: host.name.clone(),
                    });
                    hosted.holder = Some(AccountRef {
                        id: host.id,
                        name: host.name.clone(),
                    });
                }
                SeatPlan::Account { account } => {
                    table.push(TableEvent::SeatOffered {
                        seat: Seat(seat),
                        to: Offer::Account {
                            account: account_text(*account),
                        },
                    });
                    hosted.open_to = Some(OpenTo::Account { account: *account });
                }
                SeatPlan::Invitation {} => {
                    let (offer, invitation) = new_invitation(id, seat)?;
                    table.push(TableEvent::SeatOffered {
                        seat: Seat(seat),
                        to: offer,
                    });
                    hosted.open_to = Some(OpenTo::Invitation);
                    hosted.invitation = Some(invitation);
                }
                SeatPlan::Anyone {} => {
                    table.push(TableEvent::SeatOffered {
                        seat: Seat(seat),
                        to: Offer::Anyone {},
                    });
                    hosted.open_to = Some(OpenTo::Anyone);
                }
                SeatPlan::Bot { level } => {
                    table.push(TableEvent::BotSeated {
                        seat: Seat(seat),
                        level: (*level).into(),
                    });
                    hosted.bot = Some(*level);
                }
            }
            seats.push(hosted);
        }
        // The clock is set before anyone may move; its clocks start when the game begins.
        table.extend(super::clocks::clock_entry(request.clock.as_ref())?);
        if request.test_clock {
            if !self.sandbox() {
                return Err(ServiceError::SandboxOff);
            }
            table.push(TableEvent::TestClock {});
        }
        let mut links = vec![host.id];
        links.extend(reserved);
        let founded = self
            .found_game(Founding {
                id,
                game: request.game,
                players,
                options: request.options,
                seed: request.seed,
                table,
                credentials: Vec::new(),
                links,
            })
            .await?;
        Ok(HostedGame {
            id: founded.record.id,
            game: founded.record.game.clone(),
            version: founded.version,
            status: if founded.waiting {
                Status::Waiting
            } else {
                Status::Active
            },
            seed_commitment: founded.record.seed_commitment.clone(),
            options: founded.record.options.clone(),
            seats,
            listed_until,
        })
    }

    /// The host's account, or `NotHost`.
    pub(super) fn require_host(sitting: &Sitting, caller: &AccountCaller) -> Result<()> {
        let seating = sitting
            .table
            .seating()
            .ok_or(ServiceError::TableRefused(TableRefusal::NotHosted))?;
        if seating.host.account == account_text(caller.account.id) {
            Ok(())
        } else {
            Err(SeatingRefusal::NotHost.into())
        }
    }

    /// Sits `caller`'s account in `seat`, if the seat is offered to it: held for it, open to
    /// anyone, or by invitation with `code`. Answers with the game as the new player sees it.
    pub async fn claim_seat(
        &self,
        caller: &AccountCaller,
        id: Uuid,
        seat: u8,
        code: Option<&str>,
    ) -> Result<GameView> {
        let account = &caller.account;
        let event = TableEvent::Seated {
            seat: Seat(seat),
            account: account_text(account.id),
            name: account.name.clone(),
        };
        let brought = code.map(token_hash);
        // The inbox's hint is written just before the claim is appended: a claim that then
        // loses its race leaves a row the inbox skips (the log has the last word).
        self.record_table_event_if(id, None, event, Some(account.id), |loaded| {
            let offer = loaded
                .sitting
                .table
                .seating()
                .and_then(|s| s.seats.get(usize::from(seat)))
                .filter(|s| s.holder.is_none())
                .and_then(|s| s.offer.as_ref());
            match offer {
                Some(Offer::Invitation { code_hash }) if brought.as_ref() != Some(code_hash) => {
                    Err(SeatingRefusal::WrongCode(seat).into())
                }
                _ => Ok(()),
            }
        })
        .await?;
        self.away_where_due(id).await?;
        self.view(id, Caller::Seat(seat)).await
    }

    /// Offers an empty seat of a waiting game anew (a new invitation replaces the old one,
    /// whose code no longer works). Only the host may.
    pub async fn offer_seat(
        &self,
        caller: &AccountCaller,
        id: Uuid,
        seat: u8,
        to: SeatPlan,
    ) -> Result<HostedSeat> {
        let mut hosted = HostedSeat {
            seat,
            holder: None,
            open_to: None,
            invitation: None,
            bot: None,
        };
        let mut link = None;
        let offer = match to {
            SeatPlan::Me {} => return Err(SeatingRefusal::OfferToMe.into()),
            SeatPlan::Bot { .. } => return Err(SeatingRefusal::OfferToBot.into()),
            SeatPlan::Anyone {} => {
                hosted.open_to = Some(OpenTo::Anyone);
                Offer::Anyone {}
            }
            SeatPlan::Account { account } => {
                self.store
                    .account(account)
                    .await?
                    .ok_or(SeatingRefusal::NoSuchAccount(0, account))?;
                link = Some(account);
                hosted.open_to = Some(OpenTo::Account { account });
                Offer::Account {
                    account: account_text(account),
                }
            }
            SeatPlan::Invitation {} => {
                let (offer, invitation) = new_invitation(id, seat)?;
                hosted.open_to = Some(OpenTo::Invitation);
                hosted.invitation = Some(invitation);
                offer
            }
        };
        let event = TableEvent::SeatOffered {
            seat: Seat(seat),
            to: offer,
        };
        self.record_table_event_if(id, None, event, link, |loaded| {
            Self::require_host(&loaded.sitting, caller)
        })
        .await?;
        Ok(hosted)
    }

    /// Withdraws an empty seat's offer (revokes its invitation). Only the host may.
    pub async fn withdraw_offer(&self, caller: &AccountCaller, id: Uuid, seat: u8) -> Result<u64> {
        let event = TableEvent::OfferWithdrawn { seat: Seat(seat) };
        self.record_table_event_if(id, None, event, None, |loaded| {
            Self::require_host(&loaded.sitting, caller)
        })
        .await
    }

    /// Calls the game off while it waits for players. Only the host may.
    pub async fn abort_game(&self, caller: &AccountCaller, id: Uuid) -> Result<u64> {
        self.record_table_event_if(id, None, TableEvent::Aborted {}, None, |loaded| {
            Self::require_host(&loaded.sitting, caller)?;
            // Once the last seat is taken the game has begun: every seat holds its dealt
            // cards, the host's included. Were an abort allowed then, a host could call off
            // every deal it did not like and host the game again until it liked its hand.
            // The framework's own rule (and so the audit's) is the older, looser "before the
            // first move", which every abort recorded before this one also kept.
            if loaded.sitting.table.waiting() {
                Ok(())
            } else {
                Err(ServiceError::TableRefused(TableRefusal::Begun))
            }
        })
        .await
    }

    /// Resigns `caller`'s seat: the game ends, for everyone, as the table's rules say.
    pub async fn resign(&self, id: Uuid, caller: Caller) -> Result<GameView> {
        let Caller::Seat(seat) = caller else {
            return Err(ServiceError::Unauthorized(
                "resigning needs the seat's bearer token, or the account token of its player",
            ));
        };
        self.record_table_event(id, Some(seat), TableEvent::Resigned { seat: Seat(seat) })
            .await?;
        self.view(id, caller).await
    }

    /// The seat `account` plays in game `id`, if any: asked of the cached table first (a
    /// seat, once taken, stays taken), and of the log's end only when that has none.
    pub(super) async fn seat_of_account(&self, id: Uuid, account: Uuid) -> Result<Option<u8>> {
        let account = account_text(account);
        let find = |loaded: &Loaded| {
            loaded
                .sitting
                .table
                .seating()
                .and_then(|s| s.seat_of(&account))
                .map(|seat| seat.0)
        };
        let slot = self.slot(id);
        let mut guard = slot.game.lock().await;
        let cached = self
            .ensure_loaded(id, &slot, &mut guard, Freshness::Cached)
            .await?;
        if let Some(seat) = find(cached) {
            return Ok(Some(seat));
        }
        let fresh = self
            .ensure_loaded(id, &slot, &mut guard, Freshness::AtHead)
            .await?;
        Ok(find(fresh))
    }
}

/// A game's status as its table and rules leave it.
pub(super) fn status_of(sitting: &Sitting) -> Status {
    if sitting.is_over() {
        Status::Finished
    } else if sitting.table.waiting() {
        Status::Waiting
    } else {
        Status::Active
    }
}

impl From<SeatingRefusal> for ServiceError {
    fn from(refusal: SeatingRefusal) -> Self {
        ServiceError::Seating(refusal)
    }
}
