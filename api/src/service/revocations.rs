//! Ending what a revoked account token holds (issue 35, item 3).
//!
//! A request is authenticated once, but a stream (`GET /v1/games/{id}/stream`,
//! `GET /v1/me/stream`) or a long-poll (`?wait=`, `GET /v1/me/notices`) outlives that check.
//! Each one opened with an account token [`Parlour::hold`]s the token while it runs. One
//! watcher per instance asks the store, every [`REVOCATION_CHECK`] while anything is held,
//! which of the held tokens are still live (one statement for up to 500 tokens, nothing while
//! none is held), and marks the rest revoked; whatever holds them then ends. The store is the
//! one place every instance reads, so a token revoked through any instance, on Postgres or on a
//! SQLite file shared by several processes, ends what it holds everywhere within
//! [`REVOCATION_CHECK`] and the time of one query; a revocation made through this instance is
//! looked for at once. Besides, before a stream sends anything that a move or a notice brought
//! (the only data that can reach it after it was opened), it asks the store whether its token is
//! still live ([`Parlour::still_live`]), so nothing is sent once the revocation has been
//! answered, even before the watcher has looked.
//!
//! Only account tokens can be revoked. A seat token (or a match token) is the seat's for the
//! game's life: no request revokes or replaces one, and a hosted seat, once taken, is never
//! offered again. An invitation or a sign-in code opens no stream: it is spent on a claim or a
//! sign-in, which is checked when it is made.

use std::collections::HashMap;

use tokio::sync::Notify;

use super::*;

/// How often an instance asks the store whether the tokens its streams and long-polls hold
/// are still live: well within the second in which a revocation must end them.
pub const REVOCATION_CHECK: Duration = Duration::from_millis(250);

/// The account tokens this instance's streams and long-polls hold, and which are revoked.
#[derive(Debug, Default)]
pub struct Revocations {
    held: Mutex<HashMap<Uuid, Holding>>,
    /// A revocation was made through this instance: look now, not at the next check.
    look_now: Notify,
}

#[derive(Debug)]
struct Holding {
    /// How many streams and long-polls hold the token.
    holders: usize,
    /// Once `true`, always: a revoked token never comes back.
    revoked: watch::Sender<bool>,
}

/// One stream's or long-poll's hold on its account token: it says when the token is revoked.
/// Dropping it lets the token go.
#[derive(Debug)]
pub struct Hold {
    token: Uuid,
    revoked: watch::Receiver<bool>,
    revocations: Arc<Revocations>,
}

impl Hold {
    /// The token held.
    pub fn token(&self) -> Uuid {
        self.token
    }

    /// Whether the token is known to be revoked (without asking the store).
    pub fn is_revoked(&self) -> bool {
        *self.revoked.borrow()
    }

    /// Waits until the token is found revoked.
    pub async fn revoked(&mut self) {
        // The sender lives as long as any hold on the token, this one included, so an error
        // cannot come; were it to, the token could no longer be watched, and is treated as
        // revoked rather than left open.
        let _ = self.revoked.wait_for(|revoked| *revoked).await;
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        let mut held = self
            .revocations
            .held
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(holding) = held.get_mut(&self.token) {
            holding.holders = holding.holders.saturating_sub(1);
            if holding.holders == 0 {
                held.remove(&self.token);
            }
        }
    }
}

impl Revocations {
    /// Holds `token` for one stream or long-poll.
    fn hold(self: &Arc<Self>, token: Uuid) -> Hold {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let holding = held.entry(token).or_insert_with(|| Holding {
            holders: 0,
            revoked: watch::channel(false).0,
        });
        holding.holders += 1;
        Hold {
            token,
            revoked: holding.revoked.subscribe(),
            revocations: self.clone(),
        }
    }

    /// The held tokens not yet known to be revoked.
    fn unrevoked(&self) -> Vec<Uuid> {
        let held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.iter()
            .filter(|(_, holding)| !*holding.revoked.borrow())
            .map(|(token, _)| *token)
            .collect()
    }

    /// Marks `token` revoked: everything holding it ends.
    fn revoke(&self, token: Uuid) {
        let held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(holding) = held.get(&token) {
            holding.revoked.send_replace(true);
        }
    }

    /// A revocation was made through this instance: the watcher looks at once.
    pub(super) fn look_now(&self) {
        self.look_now.notify_one();
    }

    /// Asks the store which held tokens are live every `every` (and at once after a
    /// revocation made here), marking the others revoked, until the process stops.
    pub async fn watch_until_stopped(self: Arc<Self>, store: Arc<dyn EventStore>, every: Duration) {
        loop {
            tokio::select! {
                () = self.look_now.notified() => {}
                () = tokio::time::sleep(every) => {}
            }
            let tokens = self.unrevoked();
            if tokens.is_empty() {
                continue;
            }
            match store.live_account_tokens(&tokens).await {
                Ok(live) => {
                    for token in tokens.into_iter().filter(|t| !live.contains(t)) {
                        self.revoke(token);
                    }
                }
                // Looked for again at the next check; meanwhile each stream still asks before
                // it sends anything new (`Parlour::still_live`).
                Err(error) => {
                    tracing::warn!(%error, "the held tokens could not be checked for revocation")
                }
            }
        }
    }
}

impl Parlour {
    /// This instance's held tokens (its workers run the watcher).
    pub fn revocations(&self) -> Arc<Revocations> {
        self.revocations.clone()
    }

    /// Holds account token `token` for a stream or long-poll that is about to start.
    pub fn hold(&self, token: Uuid) -> Hold {
        self.revocations.hold(token)
    }

    /// Whether the held token is still live, asked of the store (a token already found
    /// revoked is not asked about again). A store that cannot answer ends the stream: what
    /// cannot be checked is not sent.
    pub async fn still_live(&self, hold: &Hold) -> bool {
        if hold.is_revoked() {
            return false;
        }
        match self.store.live_account_tokens(&[hold.token]).await {
            Ok(live) if live.contains(&hold.token) => true,
            Ok(_) => {
                self.revocations.revoke(hold.token);
                false
            }
            Err(_) => false,
        }
    }

    /// The answer to a long-poll whose token was revoked while it waited.
    pub fn revoked_while_waiting() -> ServiceError {
        ServiceError::AccountUnauthorized("this token has been revoked")
    }
}
