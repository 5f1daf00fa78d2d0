//! Who is asking: seat tokens, checked against the store and cached, and account tokens,
//! whose seat in a game its log says.

use super::stream_tickets::{Credential, IssuedStreamTicket, TicketedStream};
use super::*;
use crate::store::TicketCredential;

impl Parlour {
    /// Caches a token's seat. The cache is only a shortcut to the seats table, so when it is
    /// full it is simply emptied rather than allowed to grow with every game ever played.
    pub(super) fn remember_token(&self, hash: String, seat: (Uuid, u8)) {
        let mut tokens = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        if tokens.len() >= CACHED_TOKENS {
            tokens.clear();
        }
        tokens.insert(hash, seat);
    }

    /// Checks a bearer token against the game: no token is a spectator. An account token
    /// must hold `scope` (what the operation does to the game); a seat's or a match's token
    /// opens its seat for everything a seat does.
    pub async fn authenticate(
        &self,
        game: Uuid,
        token: Option<&str>,
        scope: Scope,
    ) -> Result<Caller> {
        Ok(self.authenticate_as(game, token, scope).await?.0)
    }

    /// [`Parlour::authenticate`] for a stream or a long-poll, which outlives the check: with
    /// an account token it also holds the token, so that its revocation ends what it opened
    /// (`revocations`). No other credential can be revoked.
    pub async fn authenticate_holding(
        &self,
        game: Uuid,
        token: Option<&str>,
        scope: Scope,
    ) -> Result<(Caller, Option<Hold>)> {
        let (caller, account_token) = self.authenticate_as(game, token, scope).await?;
        Ok((caller, account_token.map(|token| self.hold(token))))
    }

    /// [`Parlour::authenticate_holding`] for a credential a stream ticket stood for.
    pub async fn authenticate_credential_holding(
        &self,
        game: Uuid,
        credential: &Credential,
        scope: Scope,
    ) -> Result<(Caller, Option<Hold>)> {
        let (caller, account_token) = self
            .authenticate_credential(game, credential, scope)
            .await?;
        Ok((caller, account_token.map(|token| self.hold(token))))
    }

    /// The caller, and the id of the account token it came with (if it came with one).
    async fn authenticate_as(
        &self,
        game: Uuid,
        token: Option<&str>,
        scope: Scope,
    ) -> Result<(Caller, Option<Uuid>)> {
        let Some(token) = token else {
            return Ok((Caller::Spectator, None));
        };
        self.authenticate_credential(game, &Credential::presented(token, game), scope)
            .await
    }

    /// The caller a credential makes of a game, and the id of its account token (if it is
    /// one).
    pub(super) async fn authenticate_credential(
        &self,
        game: Uuid,
        credential: &Credential,
        scope: Scope,
    ) -> Result<(Caller, Option<Uuid>)> {
        let hash = match credential.kind {
            TicketCredential::Account => {
                // An account plays the seat the game's log sat it in; anywhere else it
                // watches.
                let caller = self.accounts().authenticate_hash(&credential.hash).await?;
                caller.require(scope)?;
                let seat = match self.seat_of_account(game, caller.account.id).await? {
                    Some(seat) => Caller::Seat(seat),
                    None => Caller::Spectator,
                };
                return Ok((seat, Some(caller.token)));
            }
            // A seat's token, or a match token's credential for this deal.
            TicketCredential::Seat => credential.hash.clone(),
        };
        let cached = self
            .tokens
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&hash)
            .copied();
        let found = match cached {
            Some(found) => Some(found),
            None => {
                let found = self.store.seat_for_token(game, &hash).await?;
                if let Some(found) = found {
                    self.remember_token(hash, found);
                }
                found
            }
        };
        match found {
            None => Err(ServiceError::Unauthorized("this token belongs to no seat")),
            Some((id, _)) if id != game => Err(ServiceError::WrongGame),
            Some((_, seat)) => Ok((Caller::Seat(seat), None)),
        }
    }

    /// A ticket that opens `stream` once, for the token the request came with, which must be
    /// able to open it now: a seat's (or a match's) token or an account token holding
    /// `games:read` for a game's stream, an account token holding `games:read` for the
    /// notices.
    pub async fn issue_stream_ticket(
        &self,
        stream: TicketedStream,
        token: Option<&str>,
    ) -> Result<IssuedStreamTicket> {
        let credential = match stream {
            TicketedStream::Game(game) => {
                let Some(token) = token else {
                    return Err(ServiceError::Unauthorized(
                        "a stream ticket stands for a token: send `Authorization: Bearer \
                         <token>` (a spectator opens the stream without a ticket)",
                    ));
                };
                let credential = Credential::presented(token, game);
                self.authenticate_credential(game, &credential, Scope::GamesRead)
                    .await?;
                // An account that sits nowhere in the game watches it: the game must exist.
                self.record_of(game).await?;
                credential
            }
            TicketedStream::Notices => {
                self.accounts()
                    .authenticate(token, Scope::GamesRead)
                    .await?;
                // Checked just above to be an account token.
                Credential::account(token.unwrap_or_default())
            }
        };
        self.stream_tickets().issue(stream, &credential).await
    }
}
