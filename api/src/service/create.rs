//! Creating a game: check the table, deal, seal the opening, store it, hand out tokens.

use super::*;
use crate::dto::ClockKind;
use crate::store::ListingRecord;

/// Everything a new game is founded on, however it was asked for.
pub(super) struct Founding {
    /// The game's id.
    pub(super) id: Uuid,
    /// The catalogue's id of the game.
    pub(super) game: String,
    /// The players in seat order, as the game shows them.
    pub(super) players: Vec<Player>,
    /// The game's options, unchecked.
    pub(super) options: Option<Value>,
    /// The seed in hex, if the creator chose it.
    pub(super) seed: Option<String>,
    /// The table's opening entries, recorded in this order after the deal.
    pub(super) table: Vec<TableEvent>,
    /// The seats' token hashes (none for a hosted game, whose seats are held by accounts).
    pub(super) credentials: Vec<SeatCredential>,
    /// The accounts the game places (its host, accounts seats are held for), noted for their
    /// inboxes once everything else has been checked and just before the game is stored: a
    /// crash between the two leaves a note of a game that does not exist, which the inbox
    /// skips; a refused game notes nothing.
    pub(super) links: Vec<Uuid>,
}

/// A game just stored.
pub(super) struct Founded {
    pub(super) record: Arc<GameRecord>,
    pub(super) version: u64,
    pub(super) head_hash: String,
    /// Whether it waits for players.
    pub(super) waiting: bool,
}

impl Parlour {
    /// Creates a game: checks the table, deals, stores it, and hands out one token per seat.
    pub async fn create_game(&self, request: NewGame) -> Result<CreatedGame> {
        let mut players = Vec::with_capacity(request.players.len());
        let mut table = Vec::new();
        for (i, p) in request.players.iter().enumerate() {
            let field = format!("players[{i}].name");
            let name = match (&p.name, p.bot) {
                (Some(name), _) => text::player_name(&field, name)?,
                (None, Some(level)) => bots::bot_name(level),
                (None, None) => return Err(SeatingRefusal::Nameless(i).into()),
            };
            if let (Some(level), Ok(seat)) = (p.bot, u8::try_from(i)) {
                table.push(TableEvent::BotSeated {
                    seat: Seat(seat),
                    level: level.into(),
                });
            }
            players.push(Player { name });
        }
        let mut seats = Vec::with_capacity(players.len());
        let mut credentials = Vec::with_capacity(players.len());
        for (i, player) in players.iter().enumerate() {
            // The game refuses more than 8 players before anything is stored; a seat number
            // that does not fit a u8 is refused here already.
            let seat = u8::try_from(i)
                .map_err(|_| ServiceError::Setup(SetupError::Options("too many players".into())))?;
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
                bot: request.players.get(i).and_then(|p| p.bot),
            });
        }
        let founded = self
            .found_game(Founding {
                id: Uuid::now_v7(),
                game: request.game,
                players,
                options: request.options,
                seed: request.seed,
                table: table
                    .into_iter()
                    .chain(clocks::clock_entry(request.clock.as_ref())?)
                    .collect(),
                credentials: credentials.clone(),
                links: Vec::new(),
            })
            .await?;
        let record = &founded.record;
        for c in &credentials {
            self.remember_token(c.token_hash.clone(), (record.id, c.seat));
        }
        Ok(CreatedGame {
            receipt: self
                .signer
                .sign(record.id, founded.version, &founded.head_hash),
            id: record.id,
            game: record.game.clone(),
            version: founded.version,
            seed_commitment: record.seed_commitment.clone(),
            options: record.options.clone(),
            seats,
        })
    }

    /// Checks the table, deals, seals the deal and the table's opening entries, stores them
    /// with the seats' credentials in one transaction, and keeps the game in memory.
    pub(super) async fn found_game(&self, founding: Founding) -> Result<Founded> {
        // Text first, the same on both backends: a NUL would pass SQLite and fail Postgres,
        // and whatever is accepted here is shown to the table and kept for ever.
        text::check_text("game", &founding.game, text::MAX_GAME_ID_CHARS)?;
        let options = founding
            .options
            .unwrap_or_else(|| Value::Object(Map::new()));
        text::check_strings("options", &options)?;
        let engine = engine_for(&founding.game)?;
        if !options.is_object() {
            return Err(ServiceError::Setup(SetupError::Options(
                "options must be a JSON object".into(),
            )));
        }
        let players = founding.players;
        let mut table = engine.open(&players, &options, RULES_VERSION)?;
        let seed = match &founding.seed {
            Some(text) => {
                Seed::from_hex(text).map_err(|e| ServiceError::BadRequest(e.to_string()))?
            }
            None => Seed(random_bytes()?),
        };
        // The salt is the server's own secret even when the creator chose the seed: it hides
        // the seed in the commitment and the cards in every hash until the game is over.
        let salt = random_bytes()?;
        let at = self.now();
        let record = GameRecord {
            id: founding.id,
            game: engine.describe().id.to_string(),
            players: players.clone(),
            options,
            seed,
            seed_commitment: chain::seed_commitment(&seed, &salt),
            created_at: at,
            chain: chain::CURRENT_FORMAT,
            salt: Some(salt),
            rules_version: RULES_VERSION,
        };
        let opening = table.start(&mut Chance::new(seed, 1));
        let mut entries = opening.events.clone();
        table.apply(opening);
        let mut sitting = Sitting::new(table, players.len());
        // The table's opening entries are judged as any later table event is, so a game
        // cannot be founded in a state its own log would not replay to.
        for event in &founding.table {
            sitting.admit(event, moment(at))?;
            sitting.apply_table(event, moment(at));
            entries.push(event.to_recorded());
        }
        let events = chain_events(
            &record,
            &entries,
            1,
            None,
            None,
            &chain::genesis_hash(&record),
            at,
        )?;
        // A clocked game's first note is written with the game, in one transaction: a note
        // written before it could be read by a sweep that then found no game and dropped it,
        // after this creation had noted it again, leaving a clocked game nobody looked at.
        let attention = sitting.next_due().and_then(time_of);
        for account in &founding.links {
            self.store
                .link_account_game(*account, record.id, self.clock.now())
                .await?;
        }
        // A table that opens with `table.listed` is noted in the open tables' index as the
        // accounts are noted, for the same reason and with the same leftover after a crash
        // (a row the list skips and forgets).
        if let Some(listed_until) = sitting
            .table
            .seating()
            .and_then(|seating| seating.listed_until)
            .and_then(time_of)
        {
            let clock = super::clocks::clock_view(&sitting)
                .map_or(ClockKind::None, |clock| ClockKind::of(&clock.control));
            self.store
                .note_listing(&ListingRecord {
                    game_id: record.id,
                    game: record.game.clone(),
                    players: u8::try_from(players.len()).unwrap_or(u8::MAX),
                    clock: clock.as_text(),
                    listed_until,
                })
                .await?;
        }
        // What follows a commit follows the founding one too: a bot's first turn, and the
        // notices of a table that begins with seats held for accounts (an invitation, a
        // match's next deal dealt to its players).
        let work: Vec<OutboxMessage> = self
            .after_commit
            .iter()
            .flat_map(|policy| policy.durable_work(&record, &sitting, &events))
            .collect();
        self.store
            .create_game(&record, &founding.credentials, &events, &work, attention)
            .await?;
        self.commits.committed();
        let version = events.len() as u64;
        let head_hash = events.last().map(|e| e.hash.clone()).unwrap_or_default();
        let waiting = sitting.table.waiting();
        let sitting_keeps_snapshots = sitting.rules.snapshot().is_some();
        let record = Arc::new(record);
        let slot = self.slot(record.id);
        let loaded = Loaded {
            record: record.clone(),
            engine,
            sitting,
            version,
            head_hash: head_hash.clone(),
            keeps_snapshots: self.cache.snapshot_every > 0 && sitting_keeps_snapshots,
            snapshot_at: 0,
            last: LastEntry::of(&events),
        };
        self.count_bytes(&slot, version);
        *slot.game.lock().await = Some(loaded);
        self.keep_to_budget();
        Ok(Founded {
            record,
            version,
            head_hash,
            waiting,
        })
    }
}
