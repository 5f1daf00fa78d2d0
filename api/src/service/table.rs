//! Recording table events: facts about the table (a note, a resignation, an abandonment),
//! sealed into the same hash chain as the moves and checked by the framework, never the game.

use parlour_domain::table_events::TableRefusal;

use super::*;

impl Parlour {
    /// Records `event` at the game's table, for `actor`'s seat or for the server itself
    /// (`None`), once the framework's rules for table events admit it; answers with the new
    /// version of the game.
    pub async fn record_table_event(
        &self,
        id: Uuid,
        actor: Option<u8>,
        event: TableEvent,
    ) -> Result<u64> {
        self.record_table_event_if(id, actor, event, None, |_| Ok(()))
            .await
    }

    /// [`Parlour::record_table_event`], once `check` too has passed on the game as it stands
    /// at the log's end: what only the server can judge (who is asking, an invitation's code),
    /// judged under the same lock and at the same version as the framework's own rules. Once
    /// both have passed, and just before the append, `link` (an account the event places in
    /// the game) is noted for the inbox: a refused event notes nothing.
    pub(super) async fn record_table_event_if(
        &self,
        id: Uuid,
        actor: Option<u8>,
        event: TableEvent,
        link: Option<Uuid>,
        check: impl Fn(&Sitting) -> Result<()>,
    ) -> Result<u64> {
        let slot = self.slot(id);
        for _ in 0..APPEND_ATTEMPTS {
            let mut guard = slot.game.lock().await;
            // Table events are rare and must be judged on the whole log: always at its head.
            let loaded = self
                .ensure_loaded(id, &slot, &mut guard, Freshness::AtHead)
                .await?;
            check(&loaded.sitting)?;
            loaded.sitting.admit(&event)?;
            if let Some(account) = link {
                self.store
                    .link_account_game(account, id, self.clock.now())
                    .await?;
            }
            let entry = event.to_recorded();
            let events = chain_events(
                &loaded.record,
                std::slice::from_ref(&entry),
                loaded.version + 1,
                actor,
                None,
                &loaded.head_hash,
            )?;
            let version = loaded.version + 1;
            if version > self.max_events {
                return Err(ServiceError::LogFull {
                    limit: self.max_events,
                });
            }
            match self.append_batch(loaded, &events, None).await {
                Ok(Appended::Recorded) => {
                    loaded.sitting.table.apply(&event);
                    loaded.version = version;
                    loaded.head_hash = events.last().map(|e| e.hash.clone()).unwrap_or_default();
                    return Ok(version);
                }
                Ok(Appended::LostRace) => continue,
                Err(unknown @ ServiceError::OutcomeUnknown { .. }) => {
                    *guard = None;
                    return Err(unknown);
                }
                Err(other) => return Err(other),
            }
        }
        Err(ServiceError::Conflict)
    }
}

impl From<TableRefusal> for ServiceError {
    fn from(refusal: TableRefusal) -> Self {
        ServiceError::TableRefused(refusal)
    }
}
