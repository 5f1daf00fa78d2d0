//! Reading a game: the view, long-polls and streams of views, the log, earlier states.

use super::*;

impl Parlour {
    /// The game as `caller` sees it now.
    pub async fn view(&self, id: Uuid, caller: Caller) -> Result<GameView> {
        self.with_game(id, |loaded| {
            game_view(loaded, &loaded.sitting, loaded.version, caller)
        })
        .await
    }

    /// Waits until the game moves past `known` (or `wait` passes), then shows it to `caller`.
    /// Returns `None` when nothing changed in time. The first look asks the store where the log
    /// ends, since `known` may be any version a client once saw.
    pub async fn view_when_changed(
        &self,
        id: Uuid,
        caller: Caller,
        known: u64,
        wait: Duration,
    ) -> Result<Option<GameView>> {
        self.next_view(id, caller, known, wait, Freshness::AtHead)
            .await
    }

    /// [`Parlour::view_when_changed`] for a caller whose account token `hold` holds (none for
    /// any other caller): answered "revoked" as soon as the token is found revoked while it
    /// waits, and never with a view once the store says it is.
    pub async fn view_when_changed_holding(
        &self,
        id: Uuid,
        caller: Caller,
        known: u64,
        wait: Duration,
        hold: Option<Hold>,
    ) -> Result<Option<GameView>> {
        let Some(mut hold) = hold else {
            return self.view_when_changed(id, caller, known, wait).await;
        };
        let answer = tokio::select! {
            biased;
            () = hold.revoked() => return Err(Self::revoked_while_waiting()),
            answer = self.view_when_changed(id, caller, known, wait) => answer?,
        };
        let live = match &answer {
            // A view is shown only to a token the store still calls live.
            Some(_) => self.still_live(&hold).await,
            None => !hold.is_revoked(),
        };
        if live {
            Ok(answer)
        } else {
            Err(Self::revoked_while_waiting())
        }
    }

    /// As [`Parlour::view_when_changed`], with the first look as fresh as `first` says.
    async fn next_view(
        &self,
        id: Uuid,
        caller: Caller,
        known: u64,
        wait: Duration,
        first: Freshness,
    ) -> Result<Option<GameView>> {
        let deadline = tokio::time::Instant::now() + wait;
        // Subscribed before looking, so a commit between the look and the wait still wakes it.
        let mut changes = self.slot(id).changes.subscribe();
        let mut freshness = first;
        loop {
            let view = self
                .with_game_at(id, freshness, |loaded| {
                    (loaded.version != known)
                        .then(|| game_view(loaded, &loaded.sitting, loaded.version, caller))
                })
                .await?;
            if let Some(view) = view {
                return Ok(Some(view));
            }
            // The bus (`bus.rs`) wakes the wait for every commit to this game, made through
            // this instance or any other, and says how far the log reached: from now on the
            // table need only catch up with what it was told, not ask the store. With ten
            // streams on a game, that is ten fewer queries for each move.
            freshness = Freshness::Cached;
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            match tokio::time::timeout(deadline - now, changes.changed()).await {
                Ok(Ok(())) => {}
                // The slot was dropped from the cache; watch the one that replaces it.
                Ok(Err(_)) => changes = self.slot(id).changes.subscribe(),
                Err(_) => return Ok(None),
            }
        }
    }

    /// Every view `caller` should see from now on: the current one, then one each time the game
    /// moves, with a `KeepAlive` after each quiet `heartbeat`; it ends after the final view, or
    /// as soon as the account token `hold` holds is found revoked (sending nothing more).
    pub async fn updates(
        self: Arc<Self>,
        id: Uuid,
        caller: Caller,
        heartbeat: Duration,
        hold: Option<Hold>,
    ) -> Result<impl futures_util::Stream<Item = Update>> {
        let first = self.view(id, caller).await?;
        let start = (self, Some(Update::View(Box::new(first))), None::<u64>, hold);
        Ok(futures_util::stream::unfold(
            start,
            move |(service, pending, known, mut hold)| async move {
                let update = match pending {
                    Some(update) => update,
                    None => {
                        let known = known?;
                        // The last view came from the log's end and the bus tells of every
                        // commit since, so the table need only keep up with what it was told.
                        let next =
                            service.next_view(id, caller, known, heartbeat, Freshness::Cached);
                        let found = match hold.as_mut() {
                            Some(hold) => tokio::select! {
                                biased;
                                () = hold.revoked() => return None,
                                found = next => found,
                            },
                            None => next.await,
                        };
                        match found {
                            Ok(Some(view)) => {
                                // A move made after the revocation was answered must not
                                // reach the revoked device, even before the watcher looks.
                                if let Some(hold) = &hold {
                                    if !service.still_live(hold).await {
                                        return None;
                                    }
                                }
                                Update::View(Box::new(view))
                            }
                            Ok(None) if hold.as_ref().is_some_and(Hold::is_revoked) => return None,
                            Ok(None) => Update::KeepAlive,
                            Err(_) => return None,
                        }
                    }
                };
                let known = match &update {
                    // After the final view there is nothing more to wait for.
                    Update::View(view) if view.status == Status::Finished => None,
                    Update::View(view) => Some(view.version),
                    Update::KeepAlive => known,
                };
                Some((update, (service, None, known, hold)))
            },
        ))
    }

    /// A page of the log as `caller` may see it: redacted while the game is in progress,
    /// whole (with the actions that produced each batch) once it is over.
    pub async fn events(
        &self,
        id: Uuid,
        caller: Caller,
        after: u64,
        limit: u64,
    ) -> Result<EventPage> {
        let (engine, game, status, version, format) = self
            .with_game(id, |l| {
                let game = l.record.game.clone();
                (
                    l.engine,
                    game,
                    status_of(&l.sitting),
                    l.version,
                    l.record.chain,
                )
            })
            .await?;
        let finished = status == Status::Finished;
        let stored = self.store.events(id, after, Some(limit)).await?;
        let viewer = seen_as(caller, status);
        // A format-1 hash is taken over the hidden cards with no secret, so trying every
        // candidate would find them: those links are shown only once the game is over.
        let links_shown = finished || format >= 2;
        let mut events = Vec::with_capacity(stored.len());
        for event in stored {
            // A table event holds nothing hidden: everyone sees it as it stands.
            let data = if finished || TableEvent::is_table_kind(&event.kind) {
                event.data
            } else {
                engine.redact(&recorded(&event), viewer).map_err(corrupt)?
            };
            events.push(GameEvent {
                seq: event.seq,
                kind: event.kind,
                actor: event.actor,
                data,
                at: event.at,
                sealed: event.sealed,
                hash: links_shown.then_some(event.hash),
                prev_hash: links_shown.then_some(event.prev_hash),
                version: event.version,
                command: if finished { event.command } else { None },
            });
        }
        let next_after = events.last().map(|e| e.seq).filter(|seq| *seq < version);
        Ok(EventPage {
            id,
            game,
            version,
            status,
            events,
            next: next_after.map(|seq| seq.to_string()),
            next_after,
        })
    }

    /// The game as `caller` would have seen it just after event `at`.
    pub async fn state_at(&self, id: Uuid, caller: Caller, at: u64) -> Result<GameView> {
        let (record, engine, version) = self
            .with_game(id, |l| (l.record.clone(), l.engine, l.version))
            .await?;
        if at > version {
            return Err(ServiceError::BadRequest(format!(
                "the game has {version} events; `at` must be between 0 and {version}"
            )));
        }
        let mut sitting = open_sitting(engine, &record)?;
        let events = self.store.events(id, 0, Some(at)).await?;
        readable(&events)?;
        fold(&mut sitting, &events)?;
        self.with_game(id, |loaded| game_view(loaded, &sitting, at, caller))
            .await
    }
}

/// Whom `caller` sees the cards as, in a game with `status`. A hosted game is dealt when it
/// is created, but while it waits for players nobody sees a card, not even their own: else a
/// host could look at its hand, call the game off while it waits, and host again until it
/// liked its hand (issue 35, item 4). Once the last seat is taken the game cannot be called
/// off, and each seat sees its own cards.
fn seen_as(caller: Caller, status: Status) -> Viewer {
    if status == Status::Waiting {
        Viewer::Spectator
    } else {
        caller.viewer()
    }
}

pub(super) fn game_view(
    loaded: &Loaded,
    sitting: &Sitting,
    version: u64,
    caller: Caller,
) -> GameView {
    // Whether the game waits for players now: a view of an earlier state of a game that has
    // since begun may show the seat's cards of that time.
    let viewer = seen_as(caller, status_of(&loaded.sitting));
    let view = sitting.rules.view(viewer);
    let outcome = sitting.outcome();
    let to_act: Vec<u8> = sitting.to_act().iter().map(|s| s.0).collect();
    // Whether the game is over now, not at the point shown: a replay of a finished game
    // shows every hand at every point; no view of a game in play shows another's.
    let revealed = (status_of(&loaded.sitting) == Status::Finished).then(|| {
        (0..view.seats.len())
            .filter_map(|i| u8::try_from(i).ok())
            .map(
                |i| match sitting.rules.view(Viewer::Seat(Seat(i))).private {
                    Some(Value::Object(map)) => Value::Object(map),
                    Some(other) => json!({ "private": other }),
                    None => Value::Object(Map::new()),
                },
            )
            .collect()
    });
    let seats = view
        .seats
        .into_iter()
        .enumerate()
        .map(|(i, public)| {
            let mut seat = Map::new();
            seat.insert("seat".into(), json!(i));
            // At a hosted table a seat shows its player's name once it has one.
            let holder = sitting
                .table
                .seating()
                .and_then(|s| s.seats.get(i))
                .and_then(|s| s.holder.as_ref())
                .map(|h| h.name.as_str());
            seat.insert(
                "name".into(),
                json!(holder.unwrap_or(
                    loaded
                        .record
                        .players
                        .get(i)
                        .map(|p| p.name.as_str())
                        .unwrap_or("")
                )),
            );
            // Everyone sees which seats a bot plays, and which bot.
            if let Some(bot) = u8::try_from(i)
                .ok()
                .and_then(|i| sitting.table.bot(Seat(i)))
            {
                seat.insert("bot".into(), json!(bot.name()));
            }
            match public {
                Value::Object(map) => seat.extend(map),
                Value::Null => {}
                other => {
                    seat.insert("state".into(), other);
                }
            }
            Value::Object(seat)
        })
        .collect();
    let (you, legal_actions) = match caller {
        Caller::Spectator => (None, Vec::new()),
        Caller::Seat(seat) => {
            let mut you = Map::new();
            you.insert("seat".into(), json!(seat));
            // A seat seen as a spectator (while the game waits) has no private part to show.
            let private = match viewer {
                Viewer::Seat(_) => view.private,
                Viewer::Spectator => None,
            };
            match private {
                Some(Value::Object(map)) => you.extend(map),
                Some(other) => {
                    you.insert("private".into(), other);
                }
                None => {}
            }
            // A seat its bot plays has nothing its player may send until they take it back.
            let legal = if sitting.table.bot(Seat(seat)).is_some() {
                Vec::new()
            } else {
                sitting.legal_actions(Seat(seat))
            };
            (Some(Value::Object(you)), legal)
        }
    };
    GameView {
        id: loaded.record.id,
        game: loaded.record.game.clone(),
        options: loaded.record.options.clone(),
        rules_version: loaded.record.rules_version,
        receipt: None,
        status: status_of(sitting),
        version,
        to_act,
        seats,
        public: view.public,
        you,
        revealed,
        legal_actions,
        result: outcome,
        seating: sitting
            .table
            .seating()
            .and_then(|seating| super::seating::seating_view(seating, &sitting.table)),
        clock: super::clocks::clock_view(sitting),
        deal_of: super::matches::deal_of(sitting),
        test_clock: super::test_clock::view(sitting),
    }
}
