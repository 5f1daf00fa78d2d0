//! The audit: the chain, a replay of every batch, and once the game is over the seed.

use super::*;
use crate::store::SnapshotRecord;
use parlour_domain::table_events::SNAPSHOT_FORMAT;

impl Parlour {
    /// Re-checks the hash chain, replays every batch through the engine (re-deciding each
    /// recorded action and comparing the events it gives with the ones stored), and once the
    /// game is over reveals the seed and checks it against the commitment and every shuffle.
    pub async fn audit(&self, id: Uuid) -> Result<AuditReport> {
        let (record, engine) = self.record_of(id).await?;
        let events = self.store.events(id, 0, None).await?;
        let recorded_head = self.store.head(id).await?;
        let mut failures = Vec::new();

        let head_hash = match chain::verify(&record, &events) {
            Ok(head) => head,
            Err((seq, detail)) => {
                failures.push(AuditFailure {
                    check: "chain".into(),
                    seq: Some(seq),
                    detail,
                });
                events.last().map(|e| e.hash.clone()).unwrap_or_default()
            }
        };
        let length = events.len() as u64;
        match recorded_head {
            Some((version, hash)) if version != length || hash != head_hash => {
                failures.push(AuditFailure {
                    check: "chain".into(),
                    seq: Some(version),
                    detail: format!(
                        "the log ends at event {length}, but the store recorded its end at event {version} with another hash: events were removed"
                    ),
                });
            }
            None if record.chain >= 2 => failures.push(AuditFailure {
                check: "chain".into(),
                seq: None,
                detail: "the store has no record of where the log ends".into(),
            }),
            _ => {}
        }
        // The public list's word on where the game ended: a log that is not exactly that long
        // with that last hash was rolled back, cut or rewritten since, whatever the store's
        // own record of the end (which an attacker with the database moves back too) says.
        let listed = self.store.checkpoint_of(id).await?;
        if let Some(detail) = listed
            .as_ref()
            .and_then(|listed| checkpoints::disagreement(listed, &events))
        {
            failures.push(AuditFailure {
                check: "checkpoint".into(),
                seq: listed.as_ref().map(|l| l.seq),
                detail,
            });
        }
        let chain_ok = failures.is_empty();

        // The latest snapshot is judged against the same replay: the table it holds must be
        // the one the log folds to where it was taken.
        let snapshot = self.store.latest_snapshot(id).await?;
        let compare_at = snapshot
            .as_ref()
            // One taken past the log read here was written by a move made since: it is judged
            // by the next audit.
            .filter(|s| {
                s.format == SNAPSHOT_FORMAT
                    && s.rules_version == record.rules_version
                    && s.version <= length
            })
            .map(|s| s.version);
        let (finished, replay_failure, folded) =
            replay_capturing(engine, &record, &events, compare_at);
        let replay_ok = replay_failure.is_none();
        failures.extend(replay_failure);
        if let Some(snapshot) = &snapshot {
            failures.extend(self.judge_snapshot(snapshot, compare_at, folded.as_ref(), replay_ok));
        }

        let seed_ok = if finished {
            let mut ok = chain::commitment_holds(&record);
            if !ok {
                failures.push(AuditFailure {
                    check: "seed".into(),
                    seq: None,
                    detail: "the seed does not hash to the published commitment".into(),
                });
            }
            for event in &events {
                if !every_shuffle_verifies(&record.seed, &event.data) {
                    ok = false;
                    failures.push(AuditFailure {
                        check: "seed".into(),
                        seq: Some(event.seq),
                        detail: "a recorded shuffle is not the one the seed gives".into(),
                    });
                }
            }
            Some(ok)
        } else {
            None
        };
        let checkpoint = match listed {
            Some(listed) => Some(self.signer.sign_checkpoint(id, listed.seq, &listed.hash)),
            // A finished game that is not on the list yet goes on it now, but only a log
            // that passes: the server signs no end it has not checked.
            None if finished && failures.is_empty() => {
                Some(self.checkpoints().of_finished(id, &events).await?)
            }
            None => None,
        };
        Ok(AuditReport {
            chain: record.chain,
            chain_ok,
            replay_ok,
            seed_ok,
            seed: finished.then(|| record.seed.to_hex()),
            salt: record.salt.filter(|_| finished).map(hex::encode),
            seed_commitment: record.seed_commitment.clone(),
            // A format-1 head hash is as revealing as any of its links (see `events`).
            head_hash: (finished || record.chain >= 2).then_some(head_hash),
            events: length,
            checkpoint,
            failures,
        })
    }

    /// What is wrong with the game's latest snapshot, if anything: a MAC that does not hold
    /// (the row was changed in the database: the server does not use it), or a table that is
    /// not the one the log folds to at its version (`folded`, when the replay reached it).
    fn judge_snapshot(
        &self,
        snapshot: &SnapshotRecord,
        compared_at: Option<u64>,
        folded: Option<&Value>,
        replay_ok: bool,
    ) -> Vec<AuditFailure> {
        let fail = |detail: String| AuditFailure {
            check: "snapshot".into(),
            seq: Some(snapshot.version),
            detail,
        };
        let mut failures = Vec::new();
        // One written before snapshots were authenticated has no MAC; it is not used, and its
        // table is still compared below.
        if snapshot.mac.is_some() && !snapshot_authentic(&self.snapshot_key(), snapshot) {
            failures.push(fail(format!(
                "the snapshot taken at event {} does not carry the server's MAC: it was changed in the database (the server does not use it)",
                snapshot.version
            )));
        }
        if compared_at.is_some() && replay_ok {
            let stored = serde_json::from_str::<Value>(&snapshot.state).ok();
            match folded {
                Some(folded) if stored.as_ref() == Some(folded) => {}
                Some(_) => failures.push(fail(format!(
                    "the snapshot taken at event {} is not the table the log folds to there",
                    snapshot.version
                ))),
                None => failures.push(fail(format!(
                    "a snapshot was taken at event {}, where no batch of the log ends",
                    snapshot.version
                ))),
            }
        }
        failures
    }
}

/// Replays the log batch by batch; returns whether the replayed game is over, the first
/// batch that did not replay, and the table's snapshot (`Sitting::snapshot`) as it stood once the first
/// `at` entries were applied, if a batch ends there and the replay got that far.
pub(super) fn replay_capturing(
    engine: &'static dyn Engine,
    record: &GameRecord,
    events: &[StoredEvent],
    at: Option<u64>,
) -> (bool, Option<AuditFailure>, Option<Value>) {
    let mut captured = None;
    let (over, failure) = replay_inner(engine, record, events, &mut |applied, sitting| {
        if Some(applied as u64) == at {
            captured = sitting.snapshot();
        }
    });
    (over, failure, captured)
}

fn replay_inner(
    engine: &'static dyn Engine,
    record: &GameRecord,
    events: &[StoredEvent],
    after_each: &mut dyn FnMut(usize, &Sitting),
) -> (bool, Option<AuditFailure>) {
    let fail = |seq: Option<u64>, detail: String| AuditFailure {
        check: "replay".into(),
        seq,
        detail,
    };
    let mut sitting = match engine.open(&record.players, &record.options, record.rules_version) {
        Ok(rules) => Sitting::new(rules, record.players.len()),
        Err(e) => {
            return (
                false,
                Some(fail(None, format!("the game cannot be set up again: {e}"))),
            )
        }
    };
    // The clocks are judged by the recorded times, so those must never run backwards.
    if let Some(pair) = events.windows(2).find(|pair| pair[1].at < pair[0].at) {
        return (
            false,
            Some(fail(
                Some(pair[1].seq),
                format!(
                    "event {} is recorded as earlier than event {} before it",
                    pair[1].seq, pair[0].seq
                ),
            )),
        );
    }
    let mut next = 0usize;
    while next < events.len() {
        let first = &events[next];
        if next > 0 && TableEvent::is_table_kind(&first.kind) {
            // A table event is one entry of its own, checked by the framework's rules for it
            // at the point of the log where it stands.
            let admitted = TableEvent::from_recorded(&recorded(first))
                .map_err(|e| e.to_string())
                .and_then(|event| {
                    if first.command.is_some() {
                        return Err("a table event records no action".to_string());
                    }
                    sitting
                        .admit(&event, moment(first.at))
                        .map_err(|e| e.to_string())?;
                    Ok(event)
                });
            match admitted {
                Ok(event) => {
                    sitting.apply_table(&event, moment(first.at));
                    after_each(next + 1, &sitting);
                }
                Err(detail) => {
                    return (
                        sitting.is_over(),
                        Some(fail(
                            Some(first.seq),
                            format!("the table event cannot stand here: {detail}"),
                        )),
                    )
                }
            }
            next += 1;
            continue;
        }
        let mut chance = Chance::new(record.seed, first.seq);
        let decision =
            if next == 0 {
                Ok(sitting.rules.start(&mut chance))
            } else {
                match (&first.command, first.actor) {
                    // Format-1 logs recorded the body as sent; it replays as leniently as it was
                    // accepted. Format-2 logs record the canonical action, which parses strictly.
                    (Some(_), Some(_)) if sitting.table.ended().is_some() => {
                        return (
                            true,
                            Some(fail(
                                Some(first.seq),
                                "a move is recorded after the game was ended at the table".into(),
                            )),
                        )
                    }
                    (Some(command), Some(actor)) if record.chain == 1 => sitting
                        .rules
                        .decide_legacy(Seat(actor), command, &mut chance),
                    (Some(command), Some(actor)) => {
                        sitting.decide(Seat(actor), command, &mut chance, moment(first.at))
                    }
                    _ => {
                        return (
                            sitting.is_over(),
                            Some(fail(
                                Some(first.seq),
                                "this event opens a batch but records no action".into(),
                            )),
                        )
                    }
                }
            };
        let decision = match decision {
            Ok(decision) => decision,
            Err(refused) => {
                return (
                    sitting.is_over(),
                    Some(fail(
                        Some(first.seq),
                        format!("the recorded action is refused on replay: {refused}"),
                    )),
                )
            }
        };
        let stored = &events[next..(next + decision.events.len()).min(events.len())];
        let same = stored.len() == decision.events.len()
            && stored
                .iter()
                .zip(&decision.events)
                .all(|(s, d)| s.kind == d.kind && s.data == d.data);
        if !same {
            return (
                sitting.is_over(),
                Some(fail(
                    Some(first.seq),
                    "the engine gives different events for the recorded action".into(),
                )),
            );
        }
        next += decision.events.len();
        // The opening deal is no one's move.
        let mover = first.actor.filter(|_| first.command.is_some()).map(Seat);
        sitting.apply_decision(
            decision,
            Stamp {
                at: moment(first.at),
                mover,
            },
        );
        after_each(next, &sitting);
    }
    (sitting.is_over(), None)
}

/// Finds every recorded `{"stream", "order"}` shuffle in an event and re-runs it.
pub(super) fn every_shuffle_verifies(seed: &Seed, data: &Value) -> bool {
    match data {
        Value::Object(map) => {
            if let (Some(Value::Number(stream)), Some(Value::Array(order)), 2) =
                (map.get("stream"), map.get("order"), map.len())
            {
                if let Some(stream) = stream.as_u64() {
                    return verify_shuffle(
                        seed,
                        &Shuffled {
                            stream,
                            order: order.clone(),
                        },
                    );
                }
            }
            map.values().all(|v| every_shuffle_verifies(seed, v))
        }
        Value::Array(items) => items.iter().all(|v| every_shuffle_verifies(seed, v)),
        _ => true,
    }
}
