//! Making a move: decide from the cached table, seal, append, apply, answer with a receipt.

use parlour_domain::table_events::TableRefusal;

use super::write::{Batch, Committed, Keyed, Step};
use super::*;

/// Who makes a move: the seat's player, or the bot that plays the seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mover {
    /// The seat's player: refused while a bot plays the seat.
    Player,
    /// The seat's bot: refused once nobody does. `paced`: the moment its pace ran out (the
    /// move it answers plus the pace), which the move is recorded and judged at if that has
    /// come and the log has not moved on, so that when a bot moves tells nothing of its hand;
    /// `None` (no pace) records the move when it is made, as a person's.
    Bot {
        /// When the bot's pace ran out.
        paced: Option<DateTime<Utc>>,
    },
}

/// How many entries a move's `If-Match` may be behind and still be judged by what the seat
/// could do (`Parlour::options_unchanged`) rather than refused outright: more than a round of
/// simultaneous choices of five seats with their table entries.
pub const MAX_OVERTAKEN: u64 = 64;

/// How often a move whose `If-Match` was overtaken is decided again at a newer head before it
/// is refused: each time, another seat's move came in between.
const OVERTAKEN_ATTEMPTS: u32 = 4;

impl Parlour {
    /// Makes a move for `caller`'s seat and answers with their new view, or with the first
    /// answer to the same move sent before with the same `Idempotency-Key`.
    pub async fn act(&self, id: Uuid, caller: Caller, request: Move) -> Result<Acted> {
        let Caller::Seat(seat) = caller else {
            return Err(ServiceError::Unauthorized(
                "a move needs the seat's bearer token",
            ));
        };
        self.act_as(id, seat, request, Mover::Player).await
    }

    /// Makes a move in `seat` for `mover`: the one path every move takes, a person's or a
    /// bot's, so that both are decided, logged and answered alike.
    #[tracing::instrument(name = "act", level = "debug", skip_all, fields(game = %id, seat = seat))]
    pub(super) async fn act_as(
        &self,
        id: Uuid,
        seat: u8,
        request: Move,
        mover: Mover,
    ) -> Result<Acted> {
        let caller = Caller::Seat(seat);
        if self.require_preconditions && request.if_match.is_none() {
            return Err(ServiceError::PreconditionRequired);
        }
        // Before the game sees the body: whatever text is in it, a refusal is the same on both
        // backends and names the field.
        text::check_strings("", &request.action)?;
        // Held until this request is answered: a second request with the same key meanwhile is
        // told so at once, instead of queueing behind the first for the game's lock.
        let _claim = match &request.idempotency_key {
            Some(key) => Some(self.claim_key(id, seat, key)?),
            None => None,
        };
        let fingerprint = hex::encode(Sha256::digest(
            chain::canonical_json(&request.action).as_bytes(),
        ));
        // A move is decided from the cached table as it stands: if another instance moved the
        // game since, the append collides, or the table refuses a move that is in fact legal
        // now; only then is it worth asking the store where the log ends.
        // The version the move counts as decided from: `If-Match`'s, or a later one at which
        // nothing the seat could do had changed (`options_unchanged`).
        let mut decided_from = request.if_match;
        let mut overtaken = 0;
        let answered = loop {
            let keyed = request.idempotency_key.as_deref().map(|key| Keyed {
                seat,
                key,
                fingerprint: &fingerprint,
            });
            let committed = self
                .commit_keyed(id, Freshness::Cached, keyed, |loaded, freshness| {
                    let played_by_bot = loaded.sitting.table.bot(Seat(seat)).is_some();
                    if played_by_bot != matches!(mover, Mover::Bot { .. }) {
                        // A cached table may not know yet that the seat changed hands.
                        if freshness == Freshness::Cached {
                            return Ok(Step::AtHead);
                        }
                        return Err(match mover {
                            Mover::Player => ServiceError::PlayedByBot(seat),
                            Mover::Bot { .. } => TableRefusal::NotBot(Seat(seat)).into(),
                        });
                    }
                    if let Some(expected) = decided_from {
                        if expected != loaded.version && freshness == Freshness::Cached {
                            return Ok(Step::AtHead);
                        }
                        if expected != loaded.version {
                            return Err(ServiceError::Stale {
                                expected,
                                current: loaded.version,
                            });
                        }
                    }
                    let first_seq = loaded.version + 1;
                    // The moment the move is judged at is the moment the log records for it, so a
                    // replay judges it against the same deadline. A paced bot's move was ready
                    // when its pace ran out (its search stopped well before), so that moment is
                    // its own, if it has come: never later than now, never before the entry it
                    // answers (the version is the one it decided from).
                    let now = self.game_now(&loaded.sitting);
                    let at = match mover {
                        Mover::Bot { paced: Some(paced) } => {
                            // The pace was counted in real time (`bots`), so in the game's.
                            let paced = super::test_clock::shifted(
                                paced,
                                loaded.sitting.table.test_clock(),
                            );
                            if paced <= now {
                                paced
                            } else {
                                now
                            }
                        }
                        _ => now,
                    };
                    let decision = match loaded.sitting.decide(
                        Seat(seat),
                        &request.action,
                        &mut Chance::new(loaded.record.seed, first_seq),
                        moment(at),
                    ) {
                        Ok(decision) => decision,
                        // A body that is no move of this game is refused whatever the game's state.
                        Err(refused @ Refused::Malformed(_)) => return Err(refused.into()),
                        Err(_) if freshness == Freshness::Cached => return Ok(Step::AtHead),
                        Err(refused) => return Err(refused.into()),
                    };
                    // The log keeps the action as the game parsed it, not the body as sent.
                    let events = chain_events(
                        &loaded.record,
                        &decision.events,
                        first_seq,
                        Some(seat),
                        decision.action.as_ref(),
                        &loaded.head_hash,
                        at,
                    )?;
                    let key = request.idempotency_key.as_ref().map(|key| IdempotentMove {
                        seat,
                        key: key.clone(),
                        fingerprint: fingerprint.clone(),
                        version: loaded.version + events.len() as u64,
                        created_at: self.clock.now(),
                    });
                    Ok(Step::Append(Batch {
                        events,
                        key,
                        link: None,
                        then: move |loaded: &mut Loaded| {
                            self.count_move();
                            loaded.sitting.apply_decision(
                                decision,
                                Stamp {
                                    at: moment(at),
                                    mover: Some(Seat(seat)),
                                },
                            );
                            let mut view =
                                game_view(loaded, &loaded.sitting, loaded.version, caller);
                            view.receipt =
                                Some(self.signer.sign(id, loaded.version, &loaded.head_hash));
                            // After the commit and the answer: the snapshot is written by a task
                            // of its own, and only every `--snapshot-every` entries.
                            self.keep_snapshot(loaded);
                            view
                        },
                    }))
                })
                .await;
            match (committed, request.if_match) {
                // Another seat moved since the version the move was decided from: it stands if
                // that changed nothing this seat could do (a simultaneous lay, say), checked
                // from `If-Match`'s version to the head the move was refused at, and decided
                // again there.
                (Err(ServiceError::Stale { current, .. }), Some(expected))
                    if overtaken < OVERTAKEN_ATTEMPTS =>
                {
                    overtaken += 1;
                    if self
                        .options_unchanged(id, Seat(seat), expected, current)
                        .await?
                    {
                        decided_from = Some(current);
                        continue;
                    }
                    return Err(ServiceError::Stale { expected, current });
                }
                (Err(ServiceError::Stale { current, .. }), Some(expected)) => {
                    return Err(ServiceError::Stale { expected, current })
                }
                (committed, _) => break committed?,
            }
        };
        match answered {
            Committed::Done(view) => Ok(Acted {
                view,
                replayed: false,
            }),
            Committed::Replayed(version) => {
                let mut view = self.state_at(id, caller, version).await?;
                view.receipt = self.receipt_at(id, version).await?;
                Ok(Acted {
                    view,
                    replayed: true,
                })
            }
        }
    }

    /// Whether nothing `seat` could do changed from version `from` to version `to` of the
    /// game: it was to act at both with exactly the same legal actions, and every entry
    /// between was another seat's or the table's, none its own. Then a move decided at `from`
    /// is as good at `to` (`If-Match` in a simultaneous choice: docs/integrators.md). Judged
    /// by folding the log to both versions, only when a move's `If-Match` is overtaken, and
    /// only for the last [`MAX_OVERTAKEN`] entries.
    async fn options_unchanged(&self, id: Uuid, seat: Seat, from: u64, to: u64) -> Result<bool> {
        if to <= from || to - from > MAX_OVERTAKEN {
            return Ok(false);
        }
        let (record, engine) = self.record_of(id).await?;
        let events = self.store.events(id, 0, Some(to)).await?;
        readable(&events)?;
        let (Ok(split), Ok(whole)) = (usize::try_from(from), usize::try_from(to)) else {
            return Ok(false);
        };
        if events.len() != whole {
            return Ok(false);
        }
        let (before, since) = events.split_at(split);
        if since.iter().any(|event| event.actor == Some(seat.0)) {
            return Ok(false);
        }
        let mut sitting = open_sitting(engine, &record)?;
        fold(&mut sitting, before)?;
        let then = sitting
            .to_act()
            .contains(&seat)
            .then(|| sitting.legal_actions(seat));
        fold(&mut sitting, since)?;
        let now = sitting
            .to_act()
            .contains(&seat)
            .then(|| sitting.legal_actions(seat));
        Ok(matches!((then, now), (Some(then), Some(now)) if !then.is_empty() && then == now))
    }

    /// Marks (game, seat, key) as being processed, or refuses if it already is.
    fn claim_key(&self, id: Uuid, seat: u8, key: &str) -> Result<KeyClaim> {
        let entry = (id, seat, key.to_string());
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        if !in_flight.insert(entry.clone()) {
            return Err(ServiceError::KeyInFlight);
        }
        Ok(KeyClaim {
            in_flight: self.in_flight.clone(),
            entry,
        })
    }

    /// The receipt for the log as it stood at `version`, re-signed from the stored hash (an
    /// Ed25519 signature is deterministic, so it is the receipt first given).
    pub(super) async fn receipt_at(&self, id: Uuid, version: u64) -> Result<Option<Receipt>> {
        let event = self
            .store
            .events(id, version.saturating_sub(1), Some(1))
            .await?;
        Ok(event
            .first()
            .map(|event| self.signer.sign(id, event.seq, &event.hash)))
    }
}

/// A keyed move being processed; dropping it (when the request is answered, or abandoned
/// because its client went away) lets the key be used again.
struct KeyClaim {
    in_flight: Arc<Mutex<HashSet<(Uuid, u8, String)>>>,
    entry: (Uuid, u8, String),
}

impl Drop for KeyClaim {
    fn drop(&mut self) {
        self.in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.entry);
    }
}
