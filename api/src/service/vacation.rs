//! Vacation: an account's days away a year, during which its clocks stop in every game it
//! sits in (unless a game's host disallowed it).
//!
//! The account's side (how many days it has used this calendar year) is kept beside the
//! logs; each game's side is a table event in its own log (`table.vacation_began`, with the
//! vacation's end, and `table.vacation_ended` for an early return), so every clock stays a
//! function of its game's log alone. A vacation is recorded first on the account, then in each
//! game: asking again while away records it in any game that missed it (a crash in between,
//! or a game joined since), and changes nothing in the others. A match's next deal, and a seat
//! claimed while away, are marked away when they come (`away_where_due`).

use chrono::Datelike;
use parlour_domain::table_events::TableRefusal;

use super::accounts::AccountCaller;
use super::seating::account_text;
use super::*;
use crate::dto::{NewVacation, VacationStatus};
use crate::store::VacationRecord;

/// The vacation days each account has a calendar year, unless the operator sets another
/// number (`PARLOUR_VACATION_DAYS`).
pub const DEFAULT_VACATION_DAYS: u32 = 30;

/// The longest vacation one request may ask for (a year's days can be no more).
pub const MAX_VACATION_DAYS: u32 = 366;

const DAY_MICROS: i64 = 86_400_000_000;

impl Parlour {
    /// `GET /v1/me/vacation`: the account's vacation days left this year, and whether it is
    /// away now.
    pub async fn vacation(&self, caller: &AccountCaller) -> Result<VacationStatus> {
        let now = self.now();
        let taken = self.vacations_this_year(caller, now).await?;
        Ok(self.vacation_status(&taken, now))
    }

    /// `POST /v1/me/vacation`: goes away for `days` whole days from now, stopping the
    /// account's clocks in every game it sits in that allows it.
    pub async fn begin_vacation(
        &self,
        caller: &AccountCaller,
        request: NewVacation,
    ) -> Result<VacationStatus> {
        // The request's own bounds first, whatever the account's state.
        if !(1..=MAX_VACATION_DAYS).contains(&request.days) {
            return Err(ServiceError::BadRequest(format!(
                "`days` is a whole number from 1 to {MAX_VACATION_DAYS}"
            )));
        }
        let now = self.now();
        let taken = self.vacations_this_year(caller, now).await?;
        let away = taken
            .iter()
            .find(|v| v.began_at <= now && v.until > now)
            .copied();
        let vacation = match away {
            // Already away: the games that missed it are told now (see the module's note).
            Some(vacation) => vacation,
            None => {
                let left = self.days_left(&taken, now);
                if request.days > left {
                    return Err(ServiceError::Vacation(format!(
                        "a vacation is 1 to {left} days now: {left} of this year's {} are left",
                        self.vacation_days
                    )));
                }
                let vacation = VacationRecord {
                    began_at: now,
                    until: now + chrono::Duration::days(i64::from(request.days)),
                };
                if !self
                    .store
                    .begin_vacation(caller.account.id, &vacation)
                    .await?
                {
                    return Err(ServiceError::Vacation(
                        "another request began a vacation at the same time".into(),
                    ));
                }
                vacation
            }
        };
        let until = moment(vacation.until);
        self.in_every_seat(caller, |seat| TableEvent::VacationBegan { seat, until })
            .await?;
        let taken = self.vacations_this_year(caller, now).await?;
        Ok(self.vacation_status(&taken, now))
    }

    /// `DELETE /v1/me/vacation`: comes back early; the days not used are the account's again.
    pub async fn end_vacation(&self, caller: &AccountCaller) -> Result<VacationStatus> {
        let now = self.now();
        let ended = self.store.end_vacation(caller.account.id, now).await?;
        // Even when the account is not away (any more), games that missed its early return
        // (a crash in between) hear of it; the others refuse and are left as they are.
        self.in_every_seat(caller, |seat| TableEvent::VacationEnded { seat })
            .await?;
        if !ended {
            return Err(ServiceError::Vacation(
                "this account is not on vacation".into(),
            ));
        }
        let taken = self.vacations_this_year(caller, now).await?;
        Ok(self.vacation_status(&taken, now))
    }

    /// Records `event` for the account's seat in every game it sits in whose table admits
    /// it now; games that do not (no clock, vacation disallowed, over, already told) are left
    /// as they are.
    async fn in_every_seat(
        &self,
        caller: &AccountCaller,
        event: impl Fn(Seat) -> TableEvent,
    ) -> Result<()> {
        let me = account_text(caller.account.id);
        for game in self.store.account_games(caller.account.id).await? {
            let seat = match self
                .with_game(game, |loaded| {
                    let seat = loaded.sitting.table.seating()?.seat_of(&me)?;
                    let clocked = loaded.sitting.table.clocks().is_some();
                    (clocked && !loaded.sitting.is_over()).then_some(seat)
                })
                .await
            {
                Ok(Some(seat)) => seat,
                Ok(None) | Err(ServiceError::GameNotFound(_)) => continue,
                Err(other) => return Err(other),
            };
            match self
                .record_table_event(game, Some(seat.0), event(seat))
                .await
            {
                Ok(_) => {}
                Err(ServiceError::TableRefused(
                    TableRefusal::NoVacation
                    | TableRefusal::AlreadyAway(_)
                    | TableRefusal::NotAway(_)
                    | TableRefusal::GameOver,
                )) => {}
                Err(other) => return Err(other),
            }
        }
        Ok(())
    }

    /// Marks away, in game `id`, every seat held by an account that is on vacation now: a
    /// match's next deal, or a seat taken while away, stops that seat's clock as a vacation
    /// begun after it would have, so going away covers the games that come as well as those
    /// there were. Games without clocks, or where vacation is disallowed, are left alone.
    pub(super) async fn away_where_due(&self, id: Uuid) -> Result<()> {
        let holders = self
            .with_game(id, |loaded| {
                let table = &loaded.sitting.table;
                if table.clocks().is_none() || loaded.sitting.is_over() {
                    return Vec::new();
                }
                table
                    .seating()
                    .map(|seating| {
                        (0u8..)
                            .zip(&seating.seats)
                            .filter_map(|(seat, at)| {
                                let account = at.holder.as_ref()?.account.parse::<Uuid>().ok()?;
                                Some((Seat(seat), account))
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .await?;
        let now = self.now();
        for (seat, account) in holders {
            let taken = self.store.vacations(account, start_of_year(now)).await?;
            let Some(vacation) = taken.iter().find(|v| v.began_at <= now && v.until > now) else {
                continue;
            };
            let event = TableEvent::VacationBegan {
                seat,
                until: moment(vacation.until),
            };
            match self.record_table_event(id, Some(seat.0), event).await {
                Ok(_)
                | Err(ServiceError::TableRefused(
                    TableRefusal::NoVacation
                    | TableRefusal::AlreadyAway(_)
                    | TableRefusal::GameOver,
                )) => {}
                Err(other) => return Err(other),
            }
        }
        Ok(())
    }

    /// The account's vacations that end in this calendar year or later.
    async fn vacations_this_year(
        &self,
        caller: &AccountCaller,
        now: DateTime<Utc>,
    ) -> Result<Vec<VacationRecord>> {
        Ok(self
            .store
            .vacations(caller.account.id, start_of_year(now))
            .await?)
    }

    fn days_left(&self, taken: &[VacationRecord], now: DateTime<Utc>) -> u32 {
        self.vacation_days.saturating_sub(days_used(taken, now))
    }

    fn vacation_status(&self, taken: &[VacationRecord], now: DateTime<Utc>) -> VacationStatus {
        VacationStatus {
            days_per_year: self.vacation_days,
            days_used: days_used(taken, now),
            days_left: self.days_left(taken, now),
            away_until: taken
                .iter()
                .find(|v| v.began_at <= now && v.until > now)
                .map(|v| v.until),
        }
    }
}

/// Midnight UTC on the first of January of `now`'s year.
fn start_of_year(now: DateTime<Utc>) -> DateTime<Utc> {
    chrono::NaiveDate::from_ymd_opt(now.year(), 1, 1)
        .and_then(|day| day.and_hms_opt(0, 0, 0))
        .map(|midnight| midnight.and_utc())
        .unwrap_or(now)
}

/// Whole days of this calendar year the vacations take (a part of a day counts as a day):
/// a vacation that ended early is charged only the days it lasted.
fn days_used(taken: &[VacationRecord], now: DateTime<Utc>) -> u32 {
    let year = start_of_year(now);
    let micros: i64 = taken
        .iter()
        .map(|v| {
            let from = v.began_at.max(year);
            let to = v.until;
            let span = (to - from).num_microseconds().unwrap_or(i64::MAX).max(0);
            // Rounded up to whole days, each vacation on its own.
            span.saturating_add(DAY_MICROS - 1) / DAY_MICROS * DAY_MICROS
        })
        .fold(0i64, i64::saturating_add);
    u32::try_from(micros / DAY_MICROS).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn days_used_count_whole_days_of_this_year_only() {
        let now = at("2027-03-01T00:00:00Z");
        let taken = [
            // Over New Year: only the two days of 2027 count.
            VacationRecord {
                began_at: at("2026-12-30T00:00:00Z"),
                until: at("2027-01-03T00:00:00Z"),
            },
            // Ended early after a day and an hour: two days.
            VacationRecord {
                began_at: at("2027-02-01T00:00:00Z"),
                until: at("2027-02-02T01:00:00Z"),
            },
        ];
        assert_eq!(days_used(&taken, now), 4);
        assert_eq!(start_of_year(now), at("2027-01-01T00:00:00Z"));
    }
}
