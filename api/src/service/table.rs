//! Recording table events: facts about the table (a note, a resignation, an abandonment),
//! sealed into the same hash chain as the moves and checked by the framework, never the game.

use parlour_domain::table_events::TableRefusal;

use super::write::{Batch, Step};
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
    /// at the log's end (its table and its version): what only the server can judge (who is asking, an invitation's code),
    /// judged under the same lock and at the same version as the framework's own rules. Once
    /// both have passed, and just before the append, `link` (an account the event places in
    /// the game) is noted for the inbox: a refused event notes nothing.
    #[tracing::instrument(name = "table_event", level = "debug", skip_all, fields(game = %id, kind = %event.kind()))]
    pub(super) async fn record_table_event_if(
        &self,
        id: Uuid,
        actor: Option<u8>,
        event: TableEvent,
        link: Option<Uuid>,
        check: impl Fn(&Loaded) -> Result<()>,
    ) -> Result<u64> {
        // Table events are rare and must be judged on the whole log: always at its head.
        self.commit(id, Freshness::AtHead, |loaded, _| {
            check(loaded)?;
            let at = self.game_now(&loaded.sitting);
            loaded.sitting.admit(&event, moment(at))?;
            let events = chain_events(
                &loaded.record,
                &[event.to_recorded()],
                loaded.version + 1,
                actor,
                None,
                &loaded.head_hash,
                at,
            )?;
            let event = event.clone();
            Ok(Step::Append(Batch {
                events,
                key: None,
                link,
                then: move |loaded: &mut Loaded| {
                    loaded.sitting.apply_table(&event, moment(at));
                    loaded.version
                },
            }))
        })
        .await
    }
}

/// What an operator's sweep of idle games found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdleSweep {
    /// Games with no entry for the whole idle time and no clock, still going: declared
    /// abandoned (or, in a dry run, that would be).
    pub abandoned: Vec<Uuid>,
    /// Idle games left alone: over already, or on a clock (which ends them itself).
    pub left: usize,
}

/// How many idle games one look takes.
const IDLE_PAGE: u64 = 500;

impl Parlour {
    /// The operator's command (`parlour abandon-idle`): declares abandoned every game that is
    /// still going, has no move clock, and has had no entry for `idle` — never silently, only
    /// when asked, and each with the reason in its log. A game that moved meanwhile is left
    /// alone. With `dry_run`, only lists them.
    pub async fn abandon_idle(&self, idle: Duration, dry_run: bool) -> Result<IdleSweep> {
        let idle = chrono::Duration::from_std(idle)
            .map_err(|e| ServiceError::BadRequest(format!("idle time: {e}")))?;
        let cutoff = self.now() - idle;
        let days = idle.num_days();
        let reason = format!("no move for {days} days: declared abandoned by the operator");
        let mut sweep = IdleSweep::default();
        let mut after = Uuid::nil();
        loop {
            let page = self.store.idle_games(cutoff, after, IDLE_PAGE).await?;
            for &(id, version) in &page {
                let going = self
                    .with_game(id, |loaded| {
                        !loaded.sitting.is_over() && loaded.sitting.table.clocks().is_none()
                    })
                    .await?;
                if !going {
                    sweep.left += 1;
                    continue;
                }
                if !dry_run {
                    let event = TableEvent::Abandoned {
                        reason: reason.clone(),
                    };
                    let recorded = self
                        .record_table_event_if(id, None, event, None, |loaded| {
                            if loaded.version == version {
                                Ok(())
                            } else {
                                Err(ServiceError::Conflict)
                            }
                        })
                        .await;
                    match recorded {
                        Ok(_) => {}
                        // It moved (or ended) since it was found idle: it is not idle.
                        Err(ServiceError::Conflict | ServiceError::TableRefused(_)) => {
                            sweep.left += 1;
                            continue;
                        }
                        Err(other) => return Err(other),
                    }
                }
                sweep.abandoned.push(id);
            }
            match page.last() {
                Some(&(last, _)) if page.len() as u64 == IDLE_PAGE => after = last,
                _ => return Ok(sweep),
            }
        }
    }
}

impl From<TableRefusal> for ServiceError {
    fn from(refusal: TableRefusal) -> Self {
        ServiceError::TableRefused(refusal)
    }
}
