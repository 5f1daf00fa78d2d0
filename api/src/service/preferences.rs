//! What an account is told on which channel, and when (`docs/playing-across-days.md`, "How
//! Parlour reaches you"): the notices pushed and the notices mailed, quiet hours and the
//! daily digest, in the account's time zone. The fan-out asks [`Chosen::wants`] whether a
//! notice goes to an endpoint and [`Chosen::deliver_at`] when; apps' webhooks choose their
//! own event types and are bound by neither.

use chrono::{DateTime, Duration, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use uuid::Uuid;

use super::accounts::AccountCaller;
use super::push::PUSH_EVENTS;
use super::{Clock, Result, ServiceError};
use crate::dto::{NoticePreferences, QuietHours, WebhookEventType};
use crate::store::{EndpointKind, NoticeStore};

/// The hour of the daily digest unless the account chooses another.
pub const DEFAULT_DIGEST_HOUR: u8 = 8;

/// The preferences of an account that never changed them: every notice on both channels, a
/// mail for each, no quiet hours, UTC.
pub fn defaults() -> NoticePreferences {
    NoticePreferences {
        push: PUSH_EVENTS.to_vec(),
        email: PUSH_EVENTS.to_vec(),
        email_digest: false,
        digest_hour: DEFAULT_DIGEST_HOUR,
        quiet_hours: None,
        time_zone: "UTC".to_string(),
    }
}

/// An account's preferences, checked: what the fan-out applies.
#[derive(Debug, Clone)]
pub struct Chosen {
    /// As the account set them.
    pub preferences: NoticePreferences,
    /// Its time zone.
    zone: Tz,
    /// Its quiet hours, read.
    quiet: Option<(NaiveTime, NaiveTime)>,
}

impl Chosen {
    /// Checks preferences as sent or as stored.
    pub fn check(preferences: NoticePreferences) -> std::result::Result<Self, String> {
        let zone: Tz = preferences.time_zone.parse().map_err(|_| {
            format!(
                "{:?} is not a time zone: send an IANA name such as \"Europe/London\"",
                truncated(&preferences.time_zone)
            )
        })?;
        if preferences.digest_hour > 23 {
            return Err("digest_hour is an hour of the day, 0 to 23".into());
        }
        for (channel, events) in [("push", &preferences.push), ("email", &preferences.email)] {
            if let Some(other) = events.iter().find(|e| !PUSH_EVENTS.contains(e)) {
                return Err(format!(
                    "{} is not a notice a person is sent ({channel}): choose among {}",
                    other.name(),
                    PUSH_EVENTS.map(WebhookEventType::name).join(", ")
                ));
            }
        }
        let quiet = match &preferences.quiet_hours {
            None => None,
            Some(QuietHours { from, until }) => {
                let (from, until) = (clock_time(from)?, clock_time(until)?);
                if from == until {
                    return Err("quiet hours that start when they end are empty: send null \
                                for none"
                        .into());
                }
                Some((from, until))
            }
        };
        Ok(Chosen {
            preferences,
            zone,
            quiet,
        })
    }

    /// Whether notice `event` goes to an endpoint of `kind` at all.
    pub fn wants(&self, kind: EndpointKind, event: WebhookEventType) -> bool {
        match kind {
            EndpointKind::Webhook => true,
            EndpointKind::Push => self.preferences.push.contains(&event),
            EndpointKind::Email => self.preferences.email.contains(&event),
        }
    }

    /// When a notice made at `now` is to be sent to an endpoint of `kind`: a webhook at once;
    /// a push or a mail when the quiet hours around `now` end; a mail under the digest at the
    /// next digest hour.
    pub fn deliver_at(&self, kind: EndpointKind, now: DateTime<Utc>) -> DateTime<Utc> {
        match kind {
            EndpointKind::Webhook => now,
            EndpointKind::Email if self.preferences.email_digest => {
                let hour = NaiveTime::from_hms_opt(u32::from(self.preferences.digest_hour), 0, 0)
                    .unwrap_or(NaiveTime::MIN);
                self.next(now, hour)
            }
            EndpointKind::Push | EndpointKind::Email => match self.quiet {
                Some((from, until)) if self.is_quiet(now, from, until) => self.next(now, until),
                _ => now,
            },
        }
    }

    /// Whether `now` falls in the quiet span from `from` to `until`, local time.
    fn is_quiet(&self, now: DateTime<Utc>, from: NaiveTime, until: NaiveTime) -> bool {
        let time = now.with_timezone(&self.zone).time();
        if from < until {
            from <= time && time < until
        } else {
            time >= from || time < until
        }
    }

    /// The first moment after `now` when the local clock reads `at` (a time a change of
    /// the clocks skips falls to the first moment after the change).
    fn next(&self, now: DateTime<Utc>, at: NaiveTime) -> DateTime<Utc> {
        let local = now.with_timezone(&self.zone);
        let mut day = local.date_naive();
        for _ in 0..3 {
            let wall = day.and_time(at);
            let moment = match self.zone.from_local_datetime(&wall) {
                chrono::LocalResult::Single(t) => Some(t),
                chrono::LocalResult::Ambiguous(first, _) => Some(first),
                // In the gap of a change of the clocks: an hour on is past the change.
                chrono::LocalResult::None => self
                    .zone
                    .from_local_datetime(&(wall + Duration::hours(1)))
                    .earliest(),
            };
            if let Some(moment) = moment.map(|t| t.with_timezone(&Utc)) {
                if moment > now {
                    return moment;
                }
            }
            day = day.succ_opt().unwrap_or(day);
        }
        now
    }
}

/// `HH:MM`, 00:00 to 23:59.
fn clock_time(text: &str) -> std::result::Result<NaiveTime, String> {
    let well_formed = text.len() == 5 && text.as_bytes()[2] == b':';
    well_formed
        .then(|| NaiveTime::parse_from_str(text, "%H:%M").ok())
        .flatten()
        .ok_or_else(|| format!("{:?} is not a time of day: send HH:MM", truncated(text)))
}

/// The start of a text a client sent, to quote it back.
fn truncated(text: &str) -> String {
    text.chars().take(40).collect()
}

/// The preferences of `account`: the saved ones, or the defaults.
pub(super) async fn of(store: &dyn NoticeStore, account: Uuid) -> Result<Chosen> {
    let preferences = match store.notice_preferences(account).await? {
        Some(text) => serde_json::from_str(&text).map_err(super::webhooks::internal)?,
        None => defaults(),
    };
    Chosen::check(preferences).map_err(super::webhooks::internal)
}

/// An account's notice preferences, read and replaced by the account.
pub struct Preferences<'a> {
    /// Where they are kept.
    store: &'a dyn NoticeStore,
    /// When they were changed.
    clock: &'a dyn Clock,
}

impl<'a> Preferences<'a> {
    /// The capability over its parts.
    pub(super) fn new(store: &'a dyn NoticeStore, clock: &'a dyn Clock) -> Self {
        Preferences { store, clock }
    }

    /// `GET /v1/me/notice-preferences`.
    pub async fn get(&self, caller: &AccountCaller) -> Result<NoticePreferences> {
        Ok(of(self.store, caller.account.id).await?.preferences)
    }

    /// `PUT /v1/me/notice-preferences`: replaces them whole. Notices already waiting keep
    /// the time they were given.
    pub async fn put(
        &self,
        caller: &AccountCaller,
        mut preferences: NoticePreferences,
    ) -> Result<NoticePreferences> {
        for events in [&mut preferences.push, &mut preferences.email] {
            let mut seen = Vec::new();
            events.retain(|e| {
                let first = !seen.contains(e);
                seen.push(*e);
                first
            });
        }
        let chosen = Chosen::check(preferences).map_err(ServiceError::BadNoticePreferences)?;
        let text = serde_json::to_string(&chosen.preferences).map_err(super::webhooks::internal)?;
        self.store
            .save_notice_preferences(caller.account.id, &text, self.clock.recorded_now())
            .await?;
        Ok(chosen.preferences)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    fn quiet(from: &str, until: &str, zone: &str) -> Chosen {
        Chosen::check(NoticePreferences {
            quiet_hours: Some(QuietHours {
                from: from.into(),
                until: until.into(),
            }),
            time_zone: zone.into(),
            ..defaults()
        })
        .unwrap()
    }

    #[test]
    fn a_notice_in_quiet_hours_waits_for_their_end_in_the_accounts_zone() {
        let chosen = quiet("22:00", "07:30", "Europe/London");
        // 23:10 in London in summer is 22:10 UTC.
        let now = at("2026-07-01T22:10:00Z");
        assert_eq!(
            chosen.deliver_at(EndpointKind::Push, now),
            at("2026-07-02T06:30:00Z")
        );
        assert_eq!(
            chosen.deliver_at(EndpointKind::Email, now),
            at("2026-07-02T06:30:00Z")
        );
        assert_eq!(chosen.deliver_at(EndpointKind::Webhook, now), now);
    }

    #[test]
    fn a_notice_outside_quiet_hours_goes_at_once() {
        let chosen = quiet("22:00", "07:30", "Europe/London");
        let now = at("2026-07-01T12:00:00Z");
        assert_eq!(chosen.deliver_at(EndpointKind::Push, now), now);
    }

    #[test]
    fn quiet_hours_within_one_day_end_that_day() {
        let chosen = quiet("13:00", "14:00", "UTC");
        assert_eq!(
            chosen.deliver_at(EndpointKind::Email, at("2026-07-01T13:59:59Z")),
            at("2026-07-01T14:00:00Z")
        );
        let after = at("2026-07-01T14:00:00Z");
        assert_eq!(chosen.deliver_at(EndpointKind::Email, after), after);
    }

    #[test]
    fn the_digest_waits_for_the_next_digest_hour() {
        let chosen = Chosen::check(NoticePreferences {
            email_digest: true,
            digest_hour: 8,
            time_zone: "America/New_York".into(),
            ..defaults()
        })
        .unwrap();
        // 09:00 in New York (EST, UTC-5) is past today's digest: tomorrow's, 13:00 UTC.
        assert_eq!(
            chosen.deliver_at(EndpointKind::Email, at("2026-12-06T14:00:00Z")),
            at("2026-12-07T13:00:00Z")
        );
        assert_eq!(
            chosen.deliver_at(EndpointKind::Push, at("2026-12-06T14:00:00Z")),
            at("2026-12-06T14:00:00Z")
        );
    }

    #[test]
    fn an_hour_the_clocks_skip_falls_after_the_change() {
        // London skipped 01:00-02:00 on 2026-03-29.
        let chosen = quiet("23:00", "01:30", "Europe/London");
        assert_eq!(
            chosen.deliver_at(EndpointKind::Push, at("2026-03-28T23:30:00Z")),
            at("2026-03-29T01:30:00Z")
        );
    }

    #[test]
    fn nonsense_is_refused_with_a_reason() {
        let refused = |p: NoticePreferences| Chosen::check(p).unwrap_err();
        assert!(refused(NoticePreferences {
            time_zone: "Mars/Olympus".into(),
            ..defaults()
        })
        .contains("time zone"));
        assert!(refused(NoticePreferences {
            digest_hour: 24,
            ..defaults()
        })
        .contains("0 to 23"));
        for bad in ["7:30", "24:00", "07:60", "0730", "07:30:00", ""] {
            assert!(refused(NoticePreferences {
                quiet_hours: Some(QuietHours {
                    from: bad.into(),
                    until: "08:00".into()
                }),
                ..defaults()
            })
            .contains("time of day"));
        }
        assert!(refused(NoticePreferences {
            email: vec![WebhookEventType::WebhookTest],
            ..defaults()
        })
        .contains("webhook.test"));
    }
}
