//! Creating a game: check the table, deal, seal the opening, store it, hand out tokens.

use super::*;

impl Parlour {
    /// Creates a game: checks the table, deals, stores it, and hands out one token per seat.
    pub async fn create_game(&self, request: NewGame) -> Result<CreatedGame> {
        // Text first, the same on both backends: a NUL would pass SQLite and fail Postgres,
        // and whatever is accepted here is shown to the table and kept for ever.
        text::check_text("game", &request.game, text::MAX_GAME_ID_CHARS)?;
        let players = request
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| {
                Ok(Player {
                    name: text::player_name(&format!("players[{i}].name"), &p.name)?,
                })
            })
            .collect::<Result<Vec<Player>>>()?;
        let options = request.options.unwrap_or_else(|| Value::Object(Map::new()));
        text::check_strings("options", &options)?;
        let engine = engine_for(&request.game)?;
        if !options.is_object() {
            return Err(ServiceError::Setup(SetupError::Options(
                "options must be a JSON object".into(),
            )));
        }
        let mut table = engine.open(&players, &options)?;
        let seed = match &request.seed {
            Some(text) => {
                Seed::from_hex(text).map_err(|e| ServiceError::BadRequest(e.to_string()))?
            }
            None => Seed(random_bytes()?),
        };
        // The salt is the server's own secret even when the creator chose the seed: it hides
        // the seed in the commitment and the cards in every hash until the game is over.
        let salt = random_bytes()?;
        let record = GameRecord {
            id: Uuid::now_v7(),
            game: engine.describe().id.to_string(),
            players: players.clone(),
            options,
            seed,
            seed_commitment: chain::seed_commitment(&seed, &salt),
            created_at: store::now(),
            chain: chain::CURRENT_FORMAT,
            salt: Some(salt),
            rules_version: RULES_VERSION,
        };
        let opening = table.start(&mut Chance::new(seed, 1));
        let events = chain_events(
            &record,
            &opening.events,
            1,
            None,
            None,
            &chain::genesis_hash(&record),
        )?;
        let mut seats = Vec::with_capacity(players.len());
        let mut credentials = Vec::with_capacity(players.len());
        for (i, player) in players.iter().enumerate() {
            // The game has already accepted this many players (at most 8), so a seat fits a u8.
            #[allow(clippy::cast_possible_truncation)]
            let seat = i as u8;
            let token = hex::encode(random_bytes()?);
            credentials.push(SeatCredential {
                seat,
                name: player.name.clone(),
                token_hash: token_hash(&token),
            });
            seats.push(CreatedSeat {
                seat,
                name: player.name.clone(),
                token,
            });
        }
        self.store
            .create_game(&record, &credentials, &events)
            .await?;
        self.commits.committed();
        table.apply(opening);
        let version = events.len() as u64;
        let head_hash = events.last().map(|e| e.hash.clone()).unwrap_or_default();
        let created = CreatedGame {
            receipt: self.signer.sign(record.id, version, &head_hash),
            id: record.id,
            game: record.game.clone(),
            version,
            seed_commitment: record.seed_commitment.clone(),
            options: record.options.clone(),
            seats,
        };
        for c in &credentials {
            self.remember_token(c.token_hash.clone(), (record.id, c.seat));
        }
        let slot = self.slot(record.id);
        *slot.game.lock().await = Some(Loaded {
            record: Arc::new(record),
            engine,
            sitting: Sitting::new(table, players.len()),
            version,
            head_hash,
        });
        Ok(created)
    }
}
