//! A game's public documents: score-sheet, exports, statistics, and the finished game's file.

use super::*;

impl Parlour {
    /// The public score-sheet (JSON and text), for games that keep one.
    pub async fn scoresheet(&self, id: Uuid) -> Result<parlour_domain::Scoresheet> {
        self.with_game(id, |l| l.sitting.rules.scoresheet())
            .await?
            .ok_or_else(|| ServiceError::NoSuchDocument("this game keeps no score-sheet".into()))
    }

    /// A named public export of the game.
    pub async fn export(&self, id: Uuid, format: &str) -> Result<Value> {
        self.with_game(id, |l| l.sitting.rules.export(format))
            .await?
            .ok_or_else(|| {
                ServiceError::NoSuchDocument(format!("this game has no export called {format:?}"))
            })
    }

    /// Statistics over finished games of one kind (GOOGLY: averages, centuries, hat-tricks and
    /// the championship table), from each game's public `record` export. Each game is counted
    /// once, so a game listed twice is refused rather than counted twice.
    pub async fn statistics(&self, game: &str, ids: &[Uuid]) -> Result<Value> {
        let engine = engine_for(game)?;
        // Asked first, so a game that keeps none says so whatever games were chosen.
        if engine.statistics(&[]).is_none() {
            return Err(ServiceError::NoSuchDocument(format!(
                "{game} keeps no statistics"
            )));
        }
        let mut records = Vec::with_capacity(ids.len());
        for (i, id) in ids.iter().enumerate() {
            if ids[..i].contains(id) {
                return Err(ServiceError::Selection(format!(
                    "game {id} is listed twice"
                )));
            }
            let (kind, record) = self
                .with_game(*id, |l| {
                    (
                        l.record.game.clone(),
                        l.sitting
                            .rules
                            .outcome()
                            .and(l.sitting.rules.export("record")),
                    )
                })
                .await?;
            if kind != game {
                return Err(ServiceError::Selection(format!(
                    "game {id} is {kind}, not {game}"
                )));
            }
            records
                .push(record.ok_or_else(|| {
                    ServiceError::Selection(format!("game {id} is not finished"))
                })?);
        }
        match engine.statistics(&records) {
            None => Err(ServiceError::NoSuchDocument(format!(
                "{game} keeps no statistics"
            ))),
            Some(Ok(statistics)) => Ok(statistics),
            Some(Err(error)) => {
                Err(Fault::new("the statistics could not be counted", error).into())
            }
        }
    }

    /// A finished game as one file: its creation record, every event whole, the revealed seed
    /// and salt, where the store recorded the log's end, and the signed checkpoint of the end.
    pub async fn game_file(&self, id: Uuid) -> Result<GameFile> {
        let (finished, record) = self
            .with_game(id, |l| (l.sitting.is_over(), l.record.clone()))
            .await?;
        if !finished {
            return Err(ServiceError::InProgress(
                "the game is still being played: its file, with the seed, is published when it ends",
            ));
        }
        let events = self.store.events(id, 0, None).await?;
        let head = self.store.head(id).await?;
        // One receipt per batch, for the event that ends it: what a player was handed.
        let receipts = events
            .iter()
            .enumerate()
            .filter(|(i, _)| events.get(i + 1).is_none_or(|next| next.command.is_some()))
            .map(|(_, e)| self.signer.sign(id, e.seq, &e.hash))
            .collect();
        let checkpoint = self.checkpoints().of_finished(id, &events).await?;
        Ok(GameFile {
            receipts,
            checkpoint,
            keys: vec![self.signer.public()],
            format: "parlour-game/2".into(),
            record: CreationRecord {
                id: record.id,
                game: record.game.clone(),
                players: serde_json::to_value(&record.players).map_err(corrupt)?,
                options: record.options.clone(),
                seed_commitment: record.seed_commitment.clone(),
                chain: record.chain,
                rules_version: record.rules_version,
            },
            seed: record.seed.to_hex(),
            salt: record.salt.map(hex::encode),
            events: events
                .into_iter()
                .map(|e| StoredGameEvent {
                    seq: e.seq,
                    kind: e.kind,
                    actor: e.actor,
                    data: e.data,
                    command: e.command,
                    at: e.at,
                    sealed: e.sealed,
                    prev_hash: e.prev_hash,
                    hash: e.hash,
                    version: e.version,
                })
                .collect(),
            head: head.map(|(version, hash)| LogHead { version, hash }),
        })
    }
}
