//! Who is asking: seat tokens, checked against the store and cached, and account tokens,
//! whose seat in a game its log says.

use super::*;

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
        if token.starts_with(ACCOUNT_TOKEN_PREFIX) {
            // An account plays the seat the game's log sat it in; anywhere else it watches.
            let caller = self.accounts().authenticate(Some(token), scope).await?;
            let seat = match self.seat_of_account(game, caller.account.id).await? {
                Some(seat) => Caller::Seat(seat),
                None => Caller::Spectator,
            };
            return Ok((seat, Some(caller.token)));
        }
        // A match token opens its player's seat in every deal of the match: each deal keeps
        // a credential derived from the token's hash and the deal's own id.
        let hash = if token.starts_with(super::matches::MATCH_TOKEN_PREFIX) {
            super::matches::deal_credential(&token_hash(token), game)
        } else {
            token_hash(token)
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
}
