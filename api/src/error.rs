//! One error type for the whole API, rendered as `application/problem+json` (RFC 9457).
//!
//! Every problem has a stable `type` URI, `/problems/<code>`, served by this server with a
//! description of the problem; `problems!` declares each problem once, with its code, status
//! and title.

use actix_web::error::{JsonPayloadError, PayloadError};
use actix_web::http::header::{self, HeaderName};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, ResponseError};
use parlour_domain::table_events::TableRefusal;
use parlour_domain::{Refused, SetupError};
use serde_json::{json, Map, Value};

use crate::service::{SeatingRefusal, ServiceError};

/// Declares every problem once: its variant, its code (the last part of its `type` URI), its
/// status and its title. The enum, the lookup by code and the status of each are all made
/// from this one list, so a new refusal is one row and a problem without a status cannot
/// compile.
macro_rules! problems {
    ($( $(#[doc = $doc:literal])* $variant:ident => $code:literal, $status:ident, $title:literal; )*) => {
        /// The kinds of problem a client can meet.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Problem {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl Problem {
            /// Every problem, in the order declared.
            pub const ALL: &'static [Problem] = &[$(Problem::$variant),*];

            /// The problem's code: the last part of its `type`, `/problems/<code>`.
            pub const fn code(self) -> &'static str {
                match self { $(Problem::$variant => $code,)* }
            }

            /// The HTTP status every answer with this problem has.
            pub const fn status(self) -> StatusCode {
                match self { $(Problem::$variant => StatusCode::$status,)* }
            }

            /// The problem's title: the same for every answer with it.
            pub const fn title(self) -> &'static str {
                match self { $(Problem::$variant => $title,)* }
            }
        }
    };
}

problems! {
    /// The request is not well formed (bad JSON, bad header, bad query).
    MalformedRequest => "malformed-request", BAD_REQUEST, "The request is malformed";
    /// A text field holds a control character, or is empty or too long.
    InvalidText => "invalid-text", BAD_REQUEST, "A text field holds what it may not";
    /// The body is larger than the server accepts.
    PayloadTooLarge => "payload-too-large", PAYLOAD_TOO_LARGE, "The body is too large";
    /// The body is not JSON (by its `Content-Type`).
    UnsupportedMediaType => "unsupported-media-type", UNSUPPORTED_MEDIA_TYPE, "The body must be JSON";
    /// The path exists but not with this method.
    MethodNotAllowed => "method-not-allowed", METHOD_NOT_ALLOWED, "That method is not allowed here";
    /// The body is well-formed JSON but not a move of this game.
    InvalidAction => "invalid-action", BAD_REQUEST, "The body is not a move of this game";
    /// The catalogue has no such game.
    UnknownGame => "unknown-game", UNPROCESSABLE_ENTITY, "Parlour does not offer that game";
    /// Players or options do not fit the game.
    InvalidSetup => "invalid-setup", UNPROCESSABLE_ENTITY, "The game cannot be set up like that";
    /// No token or an unknown one.
    Unauthorized => "unauthorized", UNAUTHORIZED, "A valid token is needed";
    /// The token belongs to another game.
    WrongGame => "wrong-game", FORBIDDEN, "The token belongs to another game";
    /// No such game.
    GameNotFound => "game-not-found", NOT_FOUND, "No such game";
    /// The caller's account has no such token.
    TokenNotFound => "token-not-found", NOT_FOUND, "The account has no such token";
    /// No such resource at all.
    NotFound => "not-found", NOT_FOUND, "No such resource";
    /// Not this seat's move (or the game is over).
    NotYourMove => "not-your-move", CONFLICT, "It is not your move";
    /// The seat is not offered to this account (a wrong invitation code, another's seat).
    NotInvited => "not-invited", FORBIDDEN, "The seat is not offered to you";
    /// Only the game's host may do this.
    NotHost => "not-host", FORBIDDEN, "Only the game's host may do this";
    /// Only the seat's player may do this to it.
    NotYourSeat => "not-your-seat", FORBIDDEN, "Only the seat's player may do this";
    /// The seat already has a player, or the account already plays another seat.
    SeatTaken => "seat-taken", CONFLICT, "The seat is taken";
    /// The game's seating does not allow it now: the game has begun, is still waiting for
    /// players, or was not created by an account.
    SeatingClosed => "seating-closed", CONFLICT, "The game's seats cannot change now";
    /// The rules forbid the move.
    RuleViolation => "rule-violation", UNPROCESSABLE_ENTITY, "The rules forbid that move";
    /// `If-Match` is out of date.
    VersionMismatch => "version-mismatch", PRECONDITION_FAILED, "The game has moved on";
    /// An `Idempotency-Key` reused for another move.
    IdempotencyKeyReused => "idempotency-key-reused", UNPROCESSABLE_ENTITY, "Idempotency-Key reused for another move";
    /// A request with the same `Idempotency-Key` is still being processed.
    IdempotencyKeyInFlight => "idempotency-key-in-flight", CONFLICT, "A request with this Idempotency-Key is still being processed";
    /// The server requires `If-Match` on moves and the request has none.
    PreconditionRequired => "precondition-required", PRECONDITION_REQUIRED, "A move must say which version it was decided from";
    /// Lost a race with another move.
    Conflict => "conflict", CONFLICT, "Another move was recorded at the same time";
    /// The game has no such document.
    NoSuchDocument => "no-such-document", NOT_FOUND, "The game has no such document";
    /// Something published only once the game is over.
    GameInProgress => "game-in-progress", CONFLICT, "The game is still being played";
    /// Games chosen for statistics that are unfinished, of another kind, or listed twice.
    InvalidSelection => "invalid-selection", UNPROCESSABLE_ENTITY, "Those games cannot be counted together";
    /// The game's log is as long as a game's log may be.
    LogFull => "log-full", CONFLICT, "The game's log has reached its length limit";
    /// Too many event streams open for this token or client address.
    TooManyStreams => "too-many-streams", TOO_MANY_REQUESTS, "Too many event streams are open";
    /// Too many requests from this token or client address (`http::rate_limit`).
    RateLimited => "rate-limited", TOO_MANY_REQUESTS, "Too many requests";
    /// The server holds as many event streams as it can.
    AtCapacity => "at-capacity", SERVICE_UNAVAILABLE, "The server is holding all the streams it can";
    /// The move clock asked for cannot be used.
    InvalidClock => "invalid-clock", UNPROCESSABLE_ENTITY, "The move clock cannot be set like that";
    /// A bot plays the seat (so its player cannot move in it), or does not (so it cannot be
    /// taken back from one), or already does.
    BotSeat => "bot-seat", CONFLICT, "The seat's bot does not allow that";
    /// A vacation that cannot begin or end now.
    VacationRefused => "vacation-refused", CONFLICT, "The vacation cannot begin or end now";
    /// A webhook that cannot be registered or changed like that.
    InvalidWebhook => "invalid-webhook", UNPROCESSABLE_ENTITY, "The webhook cannot be registered like that";
    /// A push subscription that cannot be kept.
    InvalidPushSubscription => "invalid-push-subscription", UNPROCESSABLE_ENTITY, "The push subscription cannot be kept";
    /// This server sends no mail.
    EmailOff => "email-off", UNPROCESSABLE_ENTITY, "This server sends no mail";
    /// This server was not started in sandbox mode.
    SandboxOff => "sandbox-off", UNPROCESSABLE_ENTITY, "This server has no test clocks";
    /// The game runs on real time.
    NoTestClock => "no-test-clock", CONFLICT, "The game is not on a test clock";
    /// An email address that cannot be kept.
    InvalidEmailAddress => "invalid-email-address", UNPROCESSABLE_ENTITY, "The email address cannot be kept";
    /// The account holds the address already.
    EmailAddressExists => "email-address-exists", CONFLICT, "The account holds that address already";
    /// A mailed link that does nothing.
    InvalidEmailLink => "invalid-email-link", UNPROCESSABLE_ENTITY, "The link does nothing";
    /// This server takes no passkeys.
    PasskeysOff => "passkeys-off", UNPROCESSABLE_ENTITY, "This server takes no passkeys";
    /// A passkey, or an answer to a passkey ceremony, that cannot be kept.
    InvalidPasskey => "invalid-passkey", UNPROCESSABLE_ENTITY, "The passkey cannot be kept";
    /// The passkey is registered already.
    PasskeyExists => "passkey-exists", CONFLICT, "The passkey is registered already";
    /// The account token does not hold the scope the operation needs.
    InsufficientScope => "insufficient-scope", FORBIDDEN, "The token lacks the scope this needs";
    /// An app's authorization request that cannot be approved.
    InvalidAuthorizationRequest => "invalid-authorization-request", BAD_REQUEST, "The app's request cannot be approved";
    /// The OAuth token or revocation endpoint refused the request (RFC 6749 §5.2).
    OAuthRefused => "oauth-refused", BAD_REQUEST, "The OAuth request was refused";
    /// Notice preferences that cannot be kept.
    InvalidNoticePreferences => "invalid-notice-preferences", UNPROCESSABLE_ENTITY, "The notice preferences cannot be kept";
    /// The database does not answer.
    Unavailable => "unavailable", SERVICE_UNAVAILABLE, "The database is not answering";
    /// A fault on our side.
    Internal => "internal", INTERNAL_SERVER_ERROR, "Something went wrong on our side";
}

pub const RETRY_AFTER_UNAVAILABLE: u64 = 2;
/// Seconds a client is asked to wait before opening another stream after a 429 or 503.
pub const RETRY_AFTER_STREAMS: u64 = 10;
/// Seconds a client is asked to wait before retrying a request whose `Idempotency-Key` is
/// still in flight: a move takes milliseconds, so the first answer is soon there to replay.
pub const RETRY_AFTER_IN_FLIGHT: u64 = 1;
/// The challenge sent with every 401 (RFC 6750 §3).
pub const BEARER_CHALLENGE: &str = "Bearer realm=\"parlour\"";

/// `Accept-Post` (RFC 9110 §15.5.16 points to it): the media types a POST accepts.
const ACCEPT_POST: &str = "accept-post";

/// Longest detail written to the log for a client error: a fuzzer's huge inputs must not
/// become huge log lines.
const LOGGED_DETAIL_CHARS: usize = 200;

impl Problem {
    /// The problem whose code this is, if any.
    pub fn from_code(code: &str) -> Option<Problem> {
        Problem::ALL.iter().copied().find(|p| p.code() == code)
    }

    /// The `Retry-After` this problem carries, in seconds, if trying again later can help.
    fn retry_after(self) -> Option<u64> {
        match self {
            Problem::Unavailable => Some(RETRY_AFTER_UNAVAILABLE),
            Problem::TooManyStreams | Problem::AtCapacity => Some(RETRY_AFTER_STREAMS),
            Problem::IdempotencyKeyInFlight => Some(RETRY_AFTER_IN_FLIGHT),
            _ => None,
        }
    }
}

/// What a problem means beyond its title, and what a client should do about it: served at
/// `/problems/<code>`. Every problem has one (the match has no catch-all, so a new problem
/// without a description does not compile).
pub fn description(problem: Problem) -> &'static str {
    match problem {
        Problem::Unavailable => {
            "The database is not answering (down, refusing connections, or too slow). Nothing \
             was changed unless the problem says `\"outcome\": \"unknown\"`: then the database \
             stopped answering while a move was being recorded and the move may or may not \
             have been recorded. Retry after `Retry-After` seconds; retry a move with the same \
             `Idempotency-Key` and body, which records it at most once and answers as the \
             first attempt would have."
        }
        Problem::TooManyStreams => {
            "This seat token, or this client address, already has as many event streams open \
             as it may. Close one (or wait `Retry-After` seconds) and try again."
        }
        Problem::RateLimited => {
            "This seat token, or this client address, has sent as many requests as it may for \
             now. Nothing was done. Wait `Retry-After` seconds and try again. Every answer \
             carries `RateLimit-Policy` (each quota and the seconds it refills over) and \
             `RateLimit` (requests left now, and seconds until one more is there), so a client \
             can slow down before it is refused."
        }
        Problem::AtCapacity => {
            "The server holds as many event streams as it can. Try again after `Retry-After` \
             seconds, or long-poll `GET /v1/games/{id}?wait=60` meanwhile."
        }
        Problem::LogFull => {
            "A game's log may hold at most as many events as the server allows (100,000 unless \
             the operator set another limit; the problem's `limit` says which); the move would \
             pass that, so it was refused and the game can go no further."
        }
        Problem::InvalidText => {
            "A text in the request is not allowed: a player's name (and an account's or an \
             account token's) must be 1 to 64 characters once trimmed of surrounding white \
             space, the game id at most 64, and any other string in a body (options, actions) \
             at most 256; none may hold a control character (U+0000 to U+001F, U+007F to \
             U+009F). The problem's `field` names the text. Nothing was recorded."
        }
        Problem::PayloadTooLarge => {
            "The body is larger than the server accepts (64 KiB; the problem's `limit` gives \
             the number of bytes). Nothing was recorded."
        }
        Problem::UnsupportedMediaType => {
            "Every body this API reads is JSON: send it with `Content-Type: application/json` \
             (the answer's `Accept-Post` says so too). Nothing was recorded."
        }
        Problem::MethodNotAllowed => {
            "The path exists, but not with this method; the answer's `Allow` header lists the \
             methods it has."
        }
        Problem::IdempotencyKeyReused => {
            "This seat already sent a different move with this `Idempotency-Key`. A key stands \
             for one move: a retry must send the same body. Keys expire (24 hours after the \
             move was recorded, unless the operator set another lifetime); after that the same \
             key is a new request, judged again by the rules and the game's version."
        }
        Problem::IdempotencyKeyInFlight => {
            "A request from this seat with the same `Idempotency-Key` is still being processed \
             by this server. Wait `Retry-After` seconds and send it again: once the first has \
             been answered, the retry gets its answer (marked `Idempotent-Replayed: true`)."
        }
        Problem::PreconditionRequired => {
            "This server is run with required preconditions (`--require-preconditions`): every \
             move must carry `If-Match: \"<version>\"` with the version of the game it was \
             decided from (the `ETag` of the view). Fetch the game and send the move again \
             with it; a version that is no longer current answers 412 `version-mismatch`."
        }
        Problem::Unauthorized => {
            "The request needs a token (`Authorization: Bearer <token>`), or the one it carries \
             is not one this route takes: a game's routes take the seat token of one of its \
             seats; `/v1/me` and its tokens take a live account token (one beginning with \
             `acct_`). An unknown token, a revoked account token, or a token of the other kind \
             is refused alike. The answer carries `WWW-Authenticate: Bearer`."
        }
        Problem::TokenNotFound => {
            "The account whose token the request carries has no live token with this id: it \
             never existed, was already revoked, or belongs to another account (which is not \
             told apart, so nobody learns which ids exist). `GET /v1/me` lists the account's \
             live tokens. Nothing was changed."
        }
        Problem::MalformedRequest => {
            "The request could not be read: a body that is not JSON or not an object, a field \
             unknown, missing or of the wrong type, or a header or query parameter out of its \
             documented form (`detail` says which). Nothing was changed; sent again as it is, \
             the request gets the same answer."
        }
        Problem::InvalidAction => {
            "The body is JSON but no action of this game: an unknown `type`, or fields the \
             game's actions do not have. The API document gives each game's actions, and the \
             seat's view lists what it may send now (`legal_actions`). Nothing was changed."
        }
        Problem::UnknownGame => {
            "The catalogue has no game with this id. `GET /v1/catalog` lists the games \
             offered. Nothing was created."
        }
        Problem::InvalidSetup => {
            "The game cannot be set up as asked: a number of players it is not played by, or \
             options it does not have or does not allow together (`detail` says which; \
             `GET /v1/catalog/{game}` gives its player counts and options). Nothing was \
             created."
        }
        Problem::WrongGame => {
            "The seat token belongs to another game: a seat token opens only its own game. \
             Use the token this game gave for the seat, or an account token, which opens \
             whichever seat the account holds. Nothing was changed."
        }
        Problem::GameNotFound => {
            "No game has this id (the id the create answer and its `Location` give). Nothing \
             was changed."
        }
        Problem::NotFound => {
            "Nothing is at this path. The API document (`/openapi.json`) lists every path."
        }
        Problem::NotYourMove => {
            "The seat may not move now: it is another seat's turn, or the game is over or \
             has not begun. The game's view says who is to act (`to_act`) and what the seat \
             may send (`legal_actions`). Nothing was changed."
        }
        Problem::NotInvited => {
            "The seat is not offered to the calling account: the invitation code is wrong or \
             was withdrawn, or the seat is held for another account. Nothing was changed."
        }
        Problem::NotHost => {
            "Only the account that hosts the game may do this. Nothing was changed."
        }
        Problem::NotYourSeat => {
            "Only the seat's own player may do this to it (hand it to a bot, or take it back \
             from one). Nothing was changed."
        }
        Problem::SeatTaken => {
            "The seat already has a player, or the calling account already plays another seat \
             of this game (an account plays one seat a game). Nothing was changed."
        }
        Problem::SeatingClosed => {
            "The game's seats cannot change now: the game has begun or ended, is still \
             waiting for players where the request needs it begun, or was not hosted by an \
             account (a game made with seat tokens alone has no seating to change). Nothing \
             was changed."
        }
        Problem::RuleViolation => {
            "The rules of the game forbid this move now (`detail` says why). The seat's view \
             lists the moves it may make (`legal_actions`). Nothing was changed."
        }
        Problem::VersionMismatch => {
            "`If-Match` names a version the game is no longer at, and what was recorded since \
             the view the move was decided from changed what the seat could do (another seat's \
             move that ended a trick, a clock's default move, the caller's other device). \
             Others' moves in a simultaneous choice that left the seat's legal actions as they \
             were do not count: such a move is judged at the current version. \
             `current_version` says where the game is. Nothing was changed: look at the game \
             again and decide again."
        }
        Problem::Conflict => {
            "Another write to the game was recorded at the same moment, and this one could not \
             be decided again after it in time. Nothing was changed. Sending the request \
             again is safe; a move sent with an `Idempotency-Key` is recorded at most once."
        }
        Problem::NoSuchDocument => {
            "The game keeps no document of this kind: score-sheets, exports and statistics \
             exist only for the games that keep them. Nothing was changed."
        }
        Problem::GameInProgress => {
            "This is published only once the game is over, since until then it could tell \
             what is hidden. Ask again when the game has finished."
        }
        Problem::InvalidSelection => {
            "The games chosen cannot be counted together: one is unfinished, of another kind \
             than the rest, or listed twice (`detail` says which). Nothing was counted."
        }
        Problem::InvalidClock => {
            "The move clock cannot be set as asked: a time outside what the clock allows, or \
             a rule it does not have (`detail` says which). Nothing was created."
        }
        Problem::BotSeat => {
            "A bot stands in the way: one plays the seat, so its player cannot move in it \
             until taking it back; or none does, so there is none to take back; or one \
             already does. Nothing was changed."
        }
        Problem::VacationRefused => {
            "The vacation cannot begin or end now: one is under way already or none is, or \
             the account has no days left this year (`detail` says which). Nothing was \
             changed."
        }
        Problem::InvalidWebhook => {
            "The endpoint cannot be registered or changed as asked: its URL is not https or \
             resolves to an address the server may not send to, its event types or \
             description are out of bounds, or the account has as many endpoints as it may \
             (`detail` says which). Nothing was changed."
        }
        Problem::InvalidPushSubscription => {
            "The browser's push subscription cannot be kept: its endpoint is not an https URL \
             of a push service the server may send to, its keys are not a P-256 public key \
             and 16 bytes of base64url, or the account has as many subscriptions as it may \
             (`detail` says which). Nothing was changed: subscribe again in the browser and \
             send what `PushSubscription.toJSON()` gives."
        }
        Problem::SandboxOff => {
            "The server's operator did not start it in sandbox mode (`--sandbox`), so no game \
             runs on a test clock (`/readyz` says `sandbox: false`). Nothing was changed: run \
             your tests against a sandbox server (`docs/sandbox.md`), or leave `test_clock` out."
        }
        Problem::NoTestClock => {
            "The game was created without `test_clock`, so its time is the real time and \
             cannot be moved on. Nothing was changed: create the game with `test_clock: true` \
             on a sandbox server to move its clock."
        }
        Problem::EmailOff => {
            "The server's operator set no mail server (`--smtp-url`), so it keeps no addresses \
             and sends no mail. Nothing was changed; push notifications may still be on."
        }
        Problem::InvalidEmailAddress => {
            "The address is not one mail can be sent to (`local@domain`, at most 254 \
             characters), or the account holds as many addresses as it may (`detail` says \
             which). Nothing was changed."
        }
        Problem::EmailAddressExists => {
            "The account holds that address already (verified or not). Nothing was changed: \
             to be sent a new verification link, delete the address and add it again."
        }
        Problem::InvalidEmailLink => {
            "The token is not one this server mailed, its link has expired (a verification \
             link works for 24 hours), or its address was removed since (`detail` says \
             which). Nothing was changed."
        }
        Problem::PasskeysOff => {
            "Browsers make passkeys only for a server reached by a domain name (or the loopback \
             address as `localhost`), and this server's public URL (`--public-url`) names \
             another IP address. Nothing was changed; sign-in codes still work."
        }
        Problem::InvalidPasskey => {
            "The registration cannot be finished: the ceremony is unknown, was finished \
             already, has expired (a ceremony lasts five minutes) or is another account's; the \
             credential is not what a browser's `PublicKeyCredential.toJSON()` gives; the \
             browser's answer does not hold (another origin, another challenge, no user \
             verification); or the account holds as many passkeys as it may (`detail` says \
             which). Nothing was changed: begin another registration."
        }
        Problem::PasskeyExists => {
            "The authenticator's credential is registered already, to this account or \
             another. Nothing was changed."
        }
        Problem::InsufficientScope => {
            "The account token is a real one, but it was minted or granted without the scope \
             this operation needs (`scope` names it; the operation's `security` in the API \
             document says it too). Nothing was changed. Ask the player for a token with that \
             scope: an app asks again through OAuth (`/play/authorize`) with the scope added; \
             a player mints a token with it (`POST /v1/me/tokens`) from a device that has it."
        }
        Problem::InvalidAuthorizationRequest => {
            "The app's OAuth request cannot be approved: no or a malformed `client_id`, a \
             `redirect_uri` that is not `https` (or `http` on a loopback host) or has a \
             fragment, an unknown scope, no PKCE (`code_challenge` with \
             `code_challenge_method=S256`), or a `response_type` other than `code` (`detail` \
             says which). Nothing was approved. When the app can safely be told, \
             `redirect_to` is the address that tells it (RFC 6749 §4.1.2.1); otherwise the \
             player should not be sent back to it."
        }
        Problem::OAuthRefused => {
            "The token or revocation endpoint refused the request: `error` is RFC 6749's code \
             (`invalid_request`, `invalid_grant`, `unsupported_grant_type`) and \
             `error_description` says why. A code works once, for ten minutes, with the same \
             `client_id` and `redirect_uri` and the verifier of its `code_challenge`; a code \
             presented twice revokes the token it gave. Start the authorization again."
        }
        Problem::InvalidNoticePreferences => {
            "The preferences name a notice a person is not sent, a time zone that is not an \
             IANA name, a time of day that is not `HH:MM`, an hour outside 0-23, or empty \
             quiet hours (`detail` says which). Nothing was changed."
        }
        Problem::Internal => {
            "Something went wrong on the server's side, not in the request. The server's log \
             names the cause under the answer's `x-request-id`: quote it when reporting. A \
             move may be sent again safely with the same `Idempotency-Key`."
        }
    }
}

/// `text` cut to at most `max` characters (on a character boundary), marked when cut.
/// Every error beneath `error`, outermost first, joined for the log.
fn chain_of(error: &dyn std::error::Error) -> String {
    let mut causes = Vec::new();
    let mut next = error.source();
    while let Some(cause) = next {
        causes.push(cause.to_string());
        next = cause.source();
    }
    causes.join(": ")
}

pub fn truncated(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(text),
        Some((end, _)) => std::borrow::Cow::Owned(format!("{}…", &text[..end])),
    }
}

/// An error answered to a client.
#[derive(Debug)]
pub struct ApiError {
    problem: Problem,
    detail: String,
    extensions: Map<String, Value>,
    /// Headers the problem calls for beyond the usual ones (`Allow`, `Accept-Post`).
    headers: Vec<(HeaderName, String)>,
    /// What went wrong inside, for the log only (a client is not shown our insides).
    cause: Option<String>,
}

impl ApiError {
    /// A problem with a detail message.
    pub fn new(problem: Problem, detail: impl Into<String>) -> Self {
        ApiError {
            problem,
            detail: detail.into(),
            extensions: Map::new(),
            headers: Vec::new(),
            cause: None,
        }
    }

    /// The body is larger than `limit` bytes.
    pub fn payload_too_large(limit: usize) -> Self {
        ApiError::new(
            Problem::PayloadTooLarge,
            format!("the body may be at most {limit} bytes"),
        )
        .with("limit", json!(limit))
    }

    /// The body was sent as `content_type` (or with none), not as JSON.
    pub fn not_json(content_type: Option<&str>) -> Self {
        let detail = match content_type {
            Some(given) => format!(
                "the body must be sent as `Content-Type: application/json`, not {:?}",
                truncated(given, 100)
            ),
            None => "the body must be sent as `Content-Type: application/json`".to_string(),
        };
        ApiError::new(Problem::UnsupportedMediaType, detail)
            .with_header(HeaderName::from_static(ACCEPT_POST), "application/json")
    }

    /// `method` is not one of `allowed` at this path.
    pub fn method_not_allowed(method: &str, path: &str, allowed: &[String]) -> Self {
        let allow = allowed.join(", ");
        ApiError::new(
            Problem::MethodNotAllowed,
            format!(
                "{} does not answer {method}; it answers {allow}",
                truncated(path, 200)
            ),
        )
        .with_header(header::ALLOW, &allow)
    }

    /// A problem for a JSON body actix could not read: too large (413), not JSON by its
    /// content type (415), or not well-formed or not of the expected shape (400).
    pub fn from_json_error(error: &JsonPayloadError, req: &HttpRequest, limit: usize) -> Self {
        match error {
            JsonPayloadError::Overflow { .. }
            | JsonPayloadError::OverflowKnownLength { .. }
            | JsonPayloadError::Payload(PayloadError::Overflow) => Self::payload_too_large(limit),
            JsonPayloadError::ContentType => Self::not_json(
                req.headers()
                    .get(header::CONTENT_TYPE)
                    .map(|value| value.to_str().unwrap_or("(not visible ASCII)")),
            ),
            other => ApiError::new(Problem::MalformedRequest, format!("bad JSON body: {other}")),
        }
    }

    fn with_header(mut self, name: HeaderName, value: &str) -> Self {
        self.headers.push((name, value.to_string()));
        self
    }

    fn with(mut self, key: &str, value: Value) -> Self {
        self.extensions.insert(key.to_string(), value);
        self
    }

    /// Records the inner cause, which is logged but not shown to the client.
    pub fn caused_by(mut self, cause: impl Into<String>) -> Self {
        self.cause = Some(cause.into());
        self
    }

    /// What the client is told of it.
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// The kind of problem.
    pub fn problem(&self) -> Problem {
        self.problem
    }
}

/// The log's form of an error: code, detail and cause; a client error's detail is cut short
/// (it can quote whatever the client sent).
impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.problem.status().is_server_error() {
            let detail = truncated(&self.detail, LOGGED_DETAIL_CHARS);
            return write!(f, "{}: {detail}", self.problem.code());
        }
        write!(f, "{}: {}", self.problem.code(), self.detail)?;
        match &self.cause {
            Some(cause) => write!(f, " ({cause})"),
            None => Ok(()),
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.problem.status()
    }

    fn error_response(&self) -> HttpResponse {
        // Logging is done once per request, by `telemetry::RootSpan`, at a level that fits.
        let (code, status, title) = (
            self.problem.code(),
            self.problem.status().as_u16(),
            self.problem.title(),
        );
        let mut body = Map::new();
        body.insert("type".into(), json!(format!("/problems/{code}")));
        body.insert("title".into(), json!(title));
        body.insert("status".into(), json!(status));
        // Faults on our side are logged in full, but a client is not shown their insides.
        let detail = if self.problem == Problem::Internal {
            "The server could not complete the request; it has been logged.".to_string()
        } else {
            self.detail.clone()
        };
        body.insert("detail".into(), json!(detail));
        body.extend(self.extensions.clone());
        let mut response = HttpResponse::build(self.status_code());
        response.content_type("application/problem+json");
        if let Some(seconds) = self.problem.retry_after() {
            response.insert_header((header::RETRY_AFTER, seconds.to_string()));
        }
        if self.problem == Problem::Unauthorized {
            response.insert_header((header::WWW_AUTHENTICATE, BEARER_CHALLENGE));
        }
        for (name, value) in &self.headers {
            response.insert_header((name.clone(), value.as_str()));
        }
        response.json(Value::Object(body))
    }
}

impl From<ServiceError> for ApiError {
    fn from(error: ServiceError) -> Self {
        let detail = error.to_string();
        match error {
            ServiceError::GameNotFound(_) => ApiError::new(Problem::GameNotFound, detail),
            ServiceError::UnknownGame(_) => ApiError::new(Problem::UnknownGame, detail),
            ServiceError::Setup(SetupError::PlayerCount { .. }) => {
                ApiError::new(Problem::InvalidSetup, detail)
            }
            ServiceError::Setup(SetupError::Options(_)) => {
                ApiError::new(Problem::InvalidSetup, detail)
            }
            ServiceError::Setup(SetupError::RulesVersion { .. }) => {
                ApiError::new(Problem::InvalidSetup, detail)
            }
            ServiceError::BadRequest(_) => ApiError::new(Problem::MalformedRequest, detail),
            ServiceError::Unauthorized(_) => ApiError::new(Problem::Unauthorized, detail),
            ServiceError::AccountUnauthorized(_) => ApiError::new(Problem::Unauthorized, detail),
            ServiceError::TokenNotFound(_) => ApiError::new(Problem::TokenNotFound, detail),
            ServiceError::WrongGame => ApiError::new(Problem::WrongGame, detail),
            ServiceError::Refused(Refused::Malformed(_)) => {
                ApiError::new(Problem::InvalidAction, detail)
            }
            ServiceError::Refused(Refused::NotYourMove { rule, .. }) => {
                ApiError::new(Problem::NotYourMove, detail).with("rule", json!(rule))
            }
            ServiceError::Refused(Refused::Forbidden { rule, .. }) => {
                ApiError::new(Problem::RuleViolation, detail).with("rule", json!(rule))
            }
            ServiceError::Stale { current, .. } => ApiError::new(Problem::VersionMismatch, detail)
                .with("current_version", json!(current)),
            ServiceError::KeyReused => ApiError::new(Problem::IdempotencyKeyReused, detail),
            ServiceError::KeyInFlight => ApiError::new(Problem::IdempotencyKeyInFlight, detail),
            ServiceError::PreconditionRequired => {
                ApiError::new(Problem::PreconditionRequired, detail)
            }
            ServiceError::InvalidText { field, .. } => {
                ApiError::new(Problem::InvalidText, detail).with("field", json!(field))
            }
            ServiceError::Conflict => ApiError::new(Problem::Conflict, detail),
            ServiceError::Selection(_) => ApiError::new(Problem::InvalidSelection, detail),
            ServiceError::NoSuchDocument(_) => ApiError::new(Problem::NoSuchDocument, detail),
            ServiceError::InProgress(_) => ApiError::new(Problem::GameInProgress, detail),
            ServiceError::LogFull { limit } => {
                ApiError::new(Problem::LogFull, detail).with("limit", json!(limit))
            }
            ServiceError::Unavailable(reason) => ApiError::new(
                Problem::Unavailable,
                "the database is not answering; try again shortly",
            )
            .caused_by(reason),
            ServiceError::OutcomeUnknown { reason, keyed } => {
                let detail = if keyed {
                    "the database stopped answering while your move was being recorded, so it \
                     may or may not have been recorded; retry with the same Idempotency-Key and \
                     body, which records it at most once and answers as the first time would have"
                } else {
                    "the database stopped answering while your move was being recorded, so it \
                     may or may not have been recorded; fetch the game to see before sending it \
                     again (an Idempotency-Key makes such a retry safe)"
                };
                ApiError::new(Problem::Unavailable, detail)
                    .with("outcome", json!("unknown"))
                    .caused_by(reason)
            }
            ServiceError::TableRefused(TableRefusal::GameOver) => {
                ApiError::new(Problem::NotYourMove, detail).with("rule", json!("game-over"))
            }
            ServiceError::TableRefused(
                TableRefusal::NotOffered(_) | TableRefusal::NotOfferedToYou(_),
            ) => ApiError::new(Problem::NotInvited, detail),
            ServiceError::TableRefused(
                TableRefusal::SeatTaken(_) | TableRefusal::AlreadySeated(_),
            ) => ApiError::new(Problem::SeatTaken, detail),
            ServiceError::TableRefused(
                TableRefusal::Begun | TableRefusal::Waiting | TableRefusal::NotHosted,
            ) => ApiError::new(Problem::SeatingClosed, detail),
            ServiceError::TableRefused(TableRefusal::NoSuchSeat(_)) => {
                ApiError::new(Problem::NotFound, detail)
            }
            ServiceError::TableRefused(TableRefusal::BadClock(_)) | ServiceError::BadClock(_) => {
                ApiError::new(Problem::InvalidClock, detail)
            }
            ServiceError::TableRefused(
                TableRefusal::AlreadyBot(_)
                | TableRefusal::NotBot(_)
                | TableRefusal::NobodyToTakeBack(_),
            )
            | ServiceError::PlayedByBot(_) => ApiError::new(Problem::BotSeat, detail),
            ServiceError::NotYourSeat(_) => ApiError::new(Problem::NotYourSeat, detail),
            ServiceError::TableRefused(
                TableRefusal::NoVacation
                | TableRefusal::AlreadyAway(_)
                | TableRefusal::NotAway(_)
                | TableRefusal::BadVacation,
            )
            | ServiceError::Vacation(_) => ApiError::new(Problem::VacationRefused, detail),
            ServiceError::TableRefused(TableRefusal::NoTestClock) => {
                ApiError::new(Problem::NoTestClock, detail)
            }
            ServiceError::TableRefused(_) => ApiError::new(Problem::MalformedRequest, detail),
            ServiceError::BadWebhook(_) => ApiError::new(Problem::InvalidWebhook, detail),
            ServiceError::BadPushSubscription(_) => {
                ApiError::new(Problem::InvalidPushSubscription, detail)
            }
            ServiceError::PushSubscriptionNotFound(_) => ApiError::new(Problem::NotFound, detail),
            ServiceError::EmailOff => ApiError::new(Problem::EmailOff, detail),
            ServiceError::SandboxOff => ApiError::new(Problem::SandboxOff, detail),
            ServiceError::BadEmailAddress(_) => ApiError::new(Problem::InvalidEmailAddress, detail),
            ServiceError::EmailAddressTaken(_) => {
                ApiError::new(Problem::EmailAddressExists, detail)
            }
            ServiceError::EmailAddressNotFound(_) => ApiError::new(Problem::NotFound, detail),
            ServiceError::BadEmailLink(_) => ApiError::new(Problem::InvalidEmailLink, detail),
            ServiceError::PasskeysOff(_) => ApiError::new(Problem::PasskeysOff, detail),
            ServiceError::BadPasskey(_) => ApiError::new(Problem::InvalidPasskey, detail),
            ServiceError::PasskeyExists => ApiError::new(Problem::PasskeyExists, detail),
            ServiceError::PasskeyNotFound(_) => ApiError::new(Problem::NotFound, detail),
            ServiceError::BadNoticePreferences(_) => {
                ApiError::new(Problem::InvalidNoticePreferences, detail)
            }
            ServiceError::WebhookNotFound(_) => ApiError::new(Problem::NotFound, detail),
            ServiceError::MatchNotFound(_) => ApiError::new(Problem::NotFound, detail),
            ServiceError::AppNotFound(_) => ApiError::new(Problem::NotFound, detail),
            ServiceError::InsufficientScope(scope) => {
                ApiError::new(Problem::InsufficientScope, detail)
                    .with("scope", json!(scope.name()))
                    .with_header(
                        header::WWW_AUTHENTICATE,
                        &format!(
                            "{BEARER_CHALLENGE}, error=\"insufficient_scope\", scope=\"{scope}\""
                        ),
                    )
            }
            ServiceError::BadAuthorization { redirect_to, .. } => {
                let error = ApiError::new(Problem::InvalidAuthorizationRequest, detail);
                match redirect_to {
                    Some(to) => error.with("redirect_to", json!(to)),
                    None => error,
                }
            }
            ServiceError::OAuth(refusal) => ApiError::new(Problem::OAuthRefused, detail)
                .with("error", json!(refusal.error))
                .with("error_description", json!(refusal.description)),
            ServiceError::Seating(SeatingRefusal::NotHost) => {
                ApiError::new(Problem::NotHost, detail)
            }
            ServiceError::Seating(SeatingRefusal::WrongCode(_)) => {
                ApiError::new(Problem::NotInvited, detail)
            }
            ServiceError::Seating(SeatingRefusal::NoOpenSeat) => {
                ApiError::new(Problem::SeatTaken, detail)
            }
            ServiceError::Seating(_) => ApiError::new(Problem::InvalidSetup, detail),
            ServiceError::Internal(fault) => {
                ApiError::new(Problem::Internal, detail).caused_by(chain_of(&fault))
            }
        }
    }
}

impl From<crate::limits::StreamRefused> for ApiError {
    fn from(refused: crate::limits::StreamRefused) -> Self {
        use crate::limits::StreamRefused;
        let problem = match refused {
            StreamRefused::PerToken(_) | StreamRefused::PerClient(_) => Problem::TooManyStreams,
            StreamRefused::Total(_) => Problem::AtCapacity,
        };
        ApiError::new(problem, refused.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_has_a_unique_code_that_finds_it_again() {
        let mut codes: Vec<&str> = Problem::ALL.iter().map(|p| p.code()).collect();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), Problem::ALL.len());
        for problem in Problem::ALL {
            assert_eq!(Problem::from_code(problem.code()), Some(*problem));
            let status = problem.status();
            assert!(
                status.is_client_error() || status.is_server_error(),
                "{problem:?} answers {status}"
            );
        }
        assert_eq!(Problem::from_code("no-such-problem"), None);
    }

    #[test]
    fn the_problems_a_client_should_retry_carry_retry_after() {
        for problem in [
            Problem::Unavailable,
            Problem::AtCapacity,
            Problem::TooManyStreams,
            Problem::IdempotencyKeyInFlight,
        ] {
            let response = ApiError::new(problem, "later").error_response();
            assert!(
                response.headers().contains_key("retry-after"),
                "{problem:?}"
            );
        }
        let response = ApiError::new(Problem::RuleViolation, "no").error_response();
        assert!(!response.headers().contains_key("retry-after"));
    }

    #[test]
    fn a_client_error_is_logged_short_and_a_fault_with_its_cause() {
        let long = "x".repeat(5_000);
        let logged = ApiError::new(Problem::MalformedRequest, long).to_string();
        assert!(
            logged.chars().count() <= LOGGED_DETAIL_CHARS + 40,
            "{logged}"
        );
        let logged = ApiError::new(Problem::Unavailable, "later")
            .caused_by("pool timed out")
            .to_string();
        assert!(logged.contains("pool timed out"), "{logged}");
    }

    #[test]
    fn a_401_challenges_for_a_bearer_token_and_a_405_lists_the_allowed_methods() {
        let response = ApiError::new(Problem::Unauthorized, "who are you").error_response();
        assert_eq!(
            response.headers().get("www-authenticate").unwrap(),
            BEARER_CHALLENGE
        );
        let response =
            ApiError::method_not_allowed("PUT", "/v1/games", &["POST".into()]).error_response();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(response.headers().get("allow").unwrap(), "POST");
        let response = ApiError::not_json(Some("text/plain")).error_response();
        assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert_eq!(
            response.headers().get("accept-post").unwrap(),
            "application/json"
        );
    }

    #[test]
    fn truncation_keeps_whole_characters() {
        assert_eq!(truncated("abc", 5), "abc");
        assert_eq!(truncated("ééééé", 2), "éé…");
    }
}
