//! Games: create, view, move, log, state at a point, audit, score-sheet and exports.

use std::time::Duration;

use actix_web::http::header::{self, ContentType};
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;

use super::stream_tickets::{admit, client_of, Opener, StreamQuery};
use super::{game_id, paging, Bearer};
use crate::dto::{AuditReport, CreatedGame, EventPage, GameFile, GameView, NewGame, ScorecardBody};
use crate::error::{ApiError, Problem};
use crate::limits::StreamGate;
use crate::scopes::Scope;
use crate::service::{Credential, Move, Parlour, TicketedStream, Update, MAX_WAIT_SECONDS};

const PROBLEM: &str = "application/problem+json";

/// The largest sequence number a client may name: the databases keep sequence numbers as
/// signed 64-bit integers, so anything above would wrap to a negative number.
const MAX_SEQ: u64 = i64::MAX as u64;

fn etag(version: u64) -> (header::HeaderName, String) {
    (header::ETAG, format!("\"{version}\""))
}

/// Reads a version from `If-Match` / `If-None-Match`: an entity tag as the `ETag` gives it,
/// `"12"`, or weak, `W/"12"` (RFC 9110 §8.8.3: the quotes are part of the tag). An empty field
/// is an empty list of entity tags (RFC 9110 §5.6.1: a list may have no element), which names
/// no version: the same as no header.
fn version_header(req: &HttpRequest, name: header::HeaderName) -> Result<Option<u64>, ApiError> {
    let Some(value) = req.headers().get(&name) else {
        return Ok(None);
    };
    let malformed = || {
        ApiError::new(
            Problem::MalformedRequest,
            format!("{name} must be a game version in quotes, like \"12\""),
        )
    };
    let text = value.to_str().map_err(|_| malformed())?.trim();
    if text.is_empty() {
        return Ok(None);
    }
    entity_tag(text).map(Some).ok_or_else(malformed)
}

/// What an `If-None-Match` names (RFC 9110 §13.1.2).
#[derive(Debug, Clone, PartialEq, Eq)]
enum NoneMatch {
    /// `*`: any version at all, so a game that exists is never "changed" (304 at once).
    Any,
    /// A list of versions the client has (one, usually): 304 while the game is at one of them.
    Versions(Vec<u64>),
}

/// Reads `If-None-Match`: `*`, or a comma-separated list of entity tags as the `ETag` gives
/// them, strong or weak (compared weakly, as §13.1.2 says). An empty field names nothing.
fn none_match(req: &HttpRequest) -> Result<Option<NoneMatch>, ApiError> {
    let Some(value) = req.headers().get(header::IF_NONE_MATCH) else {
        return Ok(None);
    };
    let malformed = || {
        ApiError::new(
            Problem::MalformedRequest,
            "If-None-Match must be `*` or game versions in quotes, like \"12\" or \"12\", \"13\"",
        )
    };
    let text = value.to_str().map_err(|_| malformed())?.trim();
    if text == "*" {
        return Ok(Some(NoneMatch::Any));
    }
    let mut versions = Vec::new();
    for tag in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        versions.push(entity_tag(tag).ok_or_else(malformed)?);
    }
    Ok((!versions.is_empty()).then_some(NoneMatch::Versions(versions)))
}

/// A version from one entity tag, `"12"` or `W/"12"`.
fn entity_tag(text: &str) -> Option<u64> {
    let tag = text.strip_prefix("W/").unwrap_or(text);
    tag.strip_prefix('"')
        .and_then(|tag| tag.strip_suffix('"'))
        .filter(|digits| (1..=19).contains(&digits.len()))
        .filter(|digits| digits.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|digits| digits.parse::<u64>().ok())
}

/// 1 to 255 printable ASCII characters (a space, never a tab; HTTP trims the ends), as the
/// document's pattern says.
fn is_idempotency_key(key: &str) -> bool {
    (1..=255).contains(&key.len()) && key.bytes().all(|b| (b' '..=b'~').contains(&b))
}

/// What every answer whose body depends on the bearer token carries: a shared cache must not
/// give one seat's view to another (`Vary`, `private`), and a private one must ask again each
/// time (`no-cache`; the `ETag` makes that a cheap 304).
fn per_seat(response: &mut actix_web::HttpResponseBuilder) -> &mut actix_web::HttpResponseBuilder {
    response
        .insert_header((header::VARY, "Authorization"))
        .insert_header((header::CACHE_CONTROL, "private, no-cache"))
}

/// Public answers that change as the game is played: anyone may cache them, but must ask
/// again before using a copy.
fn public_but_changing(
    response: &mut actix_web::HttpResponseBuilder,
) -> &mut actix_web::HttpResponseBuilder {
    response.insert_header((header::CACHE_CONTROL, "no-cache"))
}

fn view_response(view: GameView) -> HttpResponse {
    per_seat(&mut HttpResponse::Ok())
        .insert_header(etag(view.version))
        .json(view)
}

/// Create a game
///
/// Creates a game and deals. Each seat's token is in the answer, and only there.
#[utoipa::path(tag = "games", operation_id = "createGame", request_body = NewGame,
    responses(
        (status = 201, body = CreatedGame, description = "Created; `Location` names the game. The links lead to the game as seat 0 and seat 1 see it, and to their moves",
            headers(("Location" = String, description = "The game: `/v1/games/{id}`"),
                ("ETag" = String, description = "The game's version, quoted: send it as `If-Match` with the first move"))),
        (status = 400, description = "Malformed body or seed, or a name with control characters", content_type = PROBLEM),
        (status = 422, description = "Unknown game (`unknown-game`), or the wrong number of players or bad options (`invalid-setup`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering: nothing was created", content_type = PROBLEM),
    ))]
#[post("/v1/games")]
pub async fn create(
    service: web::Data<Parlour>,
    body: web::Json<NewGame>,
) -> Result<HttpResponse, ApiError> {
    let created = service.create_game(body.into_inner()).await?;
    // The answer holds every seat's token: for the creator only, never for a cache.
    Ok(HttpResponse::Created()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::LOCATION, format!("/v1/games/{}", created.id)))
        .insert_header(etag(created.version))
        .json(created))
}

/// How long to wait for a change.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct WaitQuery {
    /// With `If-None-Match: "<version>"`: wait up to this many seconds for the game to move
    /// past that version before answering (long-poll); the longest wait is 60 seconds, and a
    /// larger number counts as 60. Answers 304 if it did not.
    #[serde(default, deserialize_with = "whole_seconds")]
    #[param(schema_with = any_whole_number)]
    pub wait: Option<u64>,
}

/// `wait`'s schema: a whole number of any size, not an `int64`, since the server takes any
/// whole number and cuts it to the longest wait.
fn any_whole_number() -> utoipa::openapi::Object {
    whole_seconds_schema(
        "With `If-None-Match: \"<version>\"`: wait up to this many seconds for the game to \
         move past that version before answering (long-poll); the longest wait is 60 seconds, \
         and a larger number counts as 60. Answers 304 if it did not.",
    )
}

/// A `wait` parameter's schema, described as `description`.
pub(super) fn whole_seconds_schema(description: &str) -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::Integer)
        .minimum(Some(0))
        .description(Some(description))
        .build()
}

/// A whole number of seconds of any size (a number too large for 64 bits is simply very long,
/// and is cut to the longest wait like any other); anything else is refused.
pub(super) fn whole_seconds<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u64>, D::Error> {
    let text = String::deserialize(deserializer)?;
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(serde::de::Error::custom(
            "wait must be a whole number of seconds, like 60",
        ));
    }
    Ok(Some(text.parse::<u64>().unwrap_or(u64::MAX)))
}

/// Get a game
///
/// The game as the caller's seat sees it (no token: a spectator's view).
///
/// To be told when it is your turn, long-poll: send `If-None-Match` with the version you have
/// and `?wait=60`; the answer comes as soon as anything happens.
#[utoipa::path(tag = "games", operation_id = "getGame",
    params(("id" = String, Path, description = "Game id"), WaitQuery,
        ("If-None-Match" = Option<String>, Header, pattern = r#"^(\*|((W/)?"[0-9]{1,19}"( *, *(W/)?"[0-9]{1,19}")*)?)$"#, description = "Versions you already have, quoted as in the ETag (`\"12\"`, or a list: `\"12\", \"13\"`): 304 while the game is at one of them. `*` (any version): 304 if the game exists")),
    security((), ("seat_token" = []), ("account_token" = ["games:read"])),
    responses(
        (status = 200, body = GameView, description = "The game as the token's seat sees it (a spectator's view without a token)",
            headers(("ETag" = String, description = "The version, quoted"),
                ("Vary" = String, description = "`Authorization`: each seat sees its own view of one version"),
                ("Cache-Control" = String, description = "`private`: a view holds one seat's hidden cards"))),
        (status = 304, description = "The game is at a version If-None-Match names (or it exists, for `*`)",
            headers(("ETag" = String, description = "The version, quoted"))),
        (status = 400, description = "Malformed If-None-Match or `wait`", content_type = PROBLEM),
        (status = 401, description = "Malformed Authorization header or unknown token", content_type = PROBLEM),
        (status = 403, description = "Token of another game", content_type = PROBLEM),
        (status = 404, description = "No such game (`game-not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/games/{id}")]
pub async fn show(
    service: web::Data<Parlour>,
    id: web::Path<String>,
    bearer: Bearer,
    query: web::Query<WaitQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&id)?;
    let known = match none_match(&req)? {
        None => None,
        Some(NoneMatch::Any) => {
            // Whatever version the game is at, the client has "it": answered at once.
            let caller = service
                .authenticate(id, bearer.0.as_deref(), Scope::GamesRead)
                .await?;
            let view = service.view(id, caller).await?;
            return Ok(per_seat(&mut HttpResponse::NotModified())
                .insert_header(etag(view.version))
                .finish());
        }
        Some(NoneMatch::Versions(versions)) => Some(versions),
    };
    match known {
        None => {
            let caller = service
                .authenticate(id, bearer.0.as_deref(), Scope::GamesRead)
                .await?;
            Ok(view_response(service.view(id, caller).await?))
        }
        Some(versions) => {
            // The wait is for the game to move past the newest version the client names;
            // the answer is 304 while it stands at any of them.
            let known = versions.iter().copied().max().unwrap_or_default();
            // A long-poll outlives its check: a revoked account token ends it with 401.
            let (caller, hold) = service
                .authenticate_holding(id, bearer.0.as_deref(), Scope::GamesRead)
                .await?;
            let wait = Duration::from_secs(query.wait.unwrap_or(0).min(MAX_WAIT_SECONDS));
            match service
                .view_when_changed_holding(id, caller, known, wait, hold)
                .await?
            {
                Some(view) if !versions.contains(&view.version) => Ok(view_response(view)),
                Some(view) => Ok(per_seat(&mut HttpResponse::NotModified())
                    .insert_header(etag(view.version))
                    .finish()),
                None => Ok(per_seat(&mut HttpResponse::NotModified())
                    .insert_header(etag(known))
                    .finish()),
            }
        }
    }
}

/// Make a move
///
/// Makes a move for the token's seat and answers with the seat's new view.
#[utoipa::path(tag = "games", operation_id = "postAction",
    params(("id" = String, Path, description = "Game id"),
        ("If-Match" = Option<String>, Header, pattern = r#"^((W/)?"[0-9]{1,19}")?$"#, description = "The version the move was decided from: 412 if the game has moved on. A server run with `--require-preconditions` refuses a move without it (428)"),
        ("Idempotency-Key" = Option<String>, Header, pattern = r"^[!-~]([ -~]{0,253}[!-~])?$", description = "1 to 255 visible ASCII characters (spaces only inside). A retry with the same key and body returns the first answer (marked `Idempotent-Replayed: true`) and records nothing")),
    request_body(content = crate::wire::AnyAction, description = "One action of the game, as listed in `legal_actions` with every `{\"choose\": k, \"from\": [...]}` replaced by k distinct ids, e.g. `{\"type\":\"lay\",\"cards\":[\"a\",\"b\",\"c\"]}`"),
    security(("seat_token" = []), ("account_token" = ["games:play"])),
    responses(
        (status = 200, body = GameView, description = "The move was recorded (or, with a known Idempotency-Key, had been): the seat's new view with the move's receipt",
            headers(("ETag" = String, description = "The new version, quoted"),
                ("Idempotent-Replayed" = String, description = "`true` when this is the stored answer to an earlier request with the same Idempotency-Key"))),
        (status = 400, description = "Malformed body, If-Match or Idempotency-Key, or not a move of this game", content_type = PROBLEM),
        (status = 401, description = "Missing, malformed or unknown token", content_type = PROBLEM),
        (status = 403, description = "Token of another game", content_type = PROBLEM),
        (status = 404, description = "No such game (`game-not-found`)", content_type = PROBLEM),
        (status = 409, description = "Not this seat's move, the game is over, its log is full (`log-full`), another move was recorded at the same time (`conflict`), or a request with the same Idempotency-Key is still in flight", content_type = PROBLEM),
        (status = 412, description = "If-Match is not the current version (`current_version` says which is)", content_type = PROBLEM),
        (status = 422, description = "The rules forbid the move (`rule-violation`: `rule` says which rule), or the Idempotency-Key was used for another move (`idempotency-key-reused`)", content_type = PROBLEM),
        (status = 428, description = "The server requires If-Match on moves (`--require-preconditions`) and the request has none", content_type = PROBLEM),
        (status = 503, description = "The database is not answering; with `\"outcome\": \"unknown\"` the move may have been recorded: retry with the same Idempotency-Key", content_type = PROBLEM),
    ))]
#[post("/v1/games/{id}/actions")]
pub async fn act(
    service: web::Data<Parlour>,
    id: web::Path<String>,
    bearer: Bearer,
    body: web::Json<Value>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&id)?;
    if bearer.0.is_none() {
        return Err(ApiError::new(
            Problem::Unauthorized,
            "a move needs `Authorization: Bearer <seat token>`",
        ));
    }
    let if_match = version_header(&req, header::IF_MATCH)?;
    let idempotency_key = match req.headers().get("Idempotency-Key") {
        None => None,
        Some(value) => match value.to_str() {
            Ok(key) if is_idempotency_key(key) => Some(key.to_string()),
            _ => {
                return Err(ApiError::new(
                    Problem::MalformedRequest,
                    "Idempotency-Key must be 1 to 255 visible ASCII characters",
                ))
            }
        },
    };
    let caller = service
        .authenticate(id, bearer.0.as_deref(), Scope::GamesPlay)
        .await?;
    let acted = service
        .act(
            id,
            caller,
            Move {
                action: body.into_inner(),
                if_match,
                idempotency_key,
            },
        )
        .await?;
    let mut response = view_response(acted.view);
    if acted.replayed {
        response.headers_mut().insert(
            header::HeaderName::from_static("idempotent-replayed"),
            header::HeaderValue::from_static("true"),
        );
    }
    Ok(response)
}

/// Paging through the log.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// A page's `next`: the events after it. Left out: from the first.
    #[param(pattern = "^(0|[1-9][0-9]{0,17})$", example = "100")]
    pub cursor: Option<String>,
    /// At most this many (default 100; 1 to 1000).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<u64>,
    /// The same as `cursor`, by its older name: only events after this sequence number
    /// (default 0, at most 2^63 − 1).
    #[param(minimum = 0, maximum = 9_223_372_036_854_775_807_u64)]
    pub after: Option<u64>,
}

/// List a game's events
///
/// The log, paged. While the game is in progress each viewer sees only what their seat could
/// see at the table; once it is over the whole log is public, with the action behind each batch.
#[utoipa::path(tag = "games", operation_id = "listGameEvents",
    params(("id" = String, Path, description = "Game id"), EventsQuery),
    security((), ("seat_token" = []), ("account_token" = ["games:read"])),
    responses(
        (status = 200, body = EventPage, description = "A page of the log as the caller may see it",
            headers(("Link" = String, description = "`<…?cursor=…&limit=…>; rel=\"next\"` while there is a next page (its cursor is `next`)"))),
        (status = 400, description = "Bad paging parameters", content_type = PROBLEM),
        (status = 401, description = "Malformed Authorization header or unknown token", content_type = PROBLEM),
        (status = 403, description = "Token of another game", content_type = PROBLEM),
        (status = 404, description = "No such game (`game-not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/games/{id}/events")]
pub async fn events(
    service: web::Data<Parlour>,
    request: HttpRequest,
    id: web::Path<String>,
    bearer: Bearer,
    query: web::Query<EventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&id)?;
    let limit = paging::limit(query.limit, 100, 1000)?;
    let older = query.after.map(|after| after.to_string());
    let cursor = paging::cursor(query.cursor.as_deref(), older.as_deref());
    let after = paging::position(cursor)?.unwrap_or(0);
    if after > MAX_SEQ {
        return Err(ApiError::new(
            Problem::MalformedRequest,
            format!("after must be between 0 and {MAX_SEQ}"),
        ));
    }
    let caller = service
        .authenticate(id, bearer.0.as_deref(), Scope::GamesRead)
        .await?;
    let page = service.events(id, caller, after, limit).await?;
    let mut response = HttpResponse::Ok();
    per_seat(&mut response);
    paging::link_next(&mut response, &request, page.next.as_deref());
    Ok(response.json(page))
}

/// Which point of the game.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct StateQuery {
    /// The sequence number of the event after which to show the game (0: before the deal; at
    /// most the game's version).
    #[param(minimum = 0, maximum = 9_223_372_036_854_775_807_u64)]
    pub at: u64,
}

/// Get the game at an earlier point
///
/// The game as the caller would have seen it just after event `at`.
#[utoipa::path(tag = "games", operation_id = "getGameState",
    params(("id" = String, Path, description = "Game id"), StateQuery),
    security((), ("seat_token" = []), ("account_token" = ["games:read"])),
    responses(
        (status = 200, body = GameView, description = "The game as the caller saw it just after event `at`",
            headers(("ETag" = String, description = "The version shown (`at`), quoted"),
                ("Vary" = String, description = "`Authorization`: each seat sees its own view"),
                ("Cache-Control" = String, description = "`private`: a view holds one seat's hidden cards"))),
        (status = 400, description = "`at` missing or beyond the last event", content_type = PROBLEM),
        (status = 401, description = "Malformed Authorization header or unknown token", content_type = PROBLEM),
        (status = 403, description = "Token of another game", content_type = PROBLEM),
        (status = 404, description = "No such game (`game-not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/games/{id}/state")]
pub async fn state_at(
    service: web::Data<Parlour>,
    id: web::Path<String>,
    bearer: Bearer,
    query: web::Query<StateQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&id)?;
    let caller = service
        .authenticate(id, bearer.0.as_deref(), Scope::GamesRead)
        .await?;
    Ok(view_response(service.state_at(id, caller, query.at).await?))
}

/// Audit a game
///
/// Re-checks the hash chain and replays the log through the engine; once the game is over,
/// reveals the seed and checks it against the commitment and every shuffle.
#[utoipa::path(tag = "games", operation_id = "getGameAudit",
    params(("id" = String, Path, description = "Game id")),
    responses(
        (status = 200, body = AuditReport, description = "What the checks found"),
        (status = 404, description = "No such game (`game-not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/games/{id}/audit")]
pub async fn audit(
    service: web::Data<Parlour>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&id)?;
    let report = service.audit(id).await?;
    Ok(public_but_changing(&mut HttpResponse::Ok()).json(report))
}

/// Download a finished game's file
///
/// A finished game as one file (creation record, every event whole, the revealed seed and
/// salt, the recorded end of the log), for `tools/verify.py FILE` to check with no server.
#[utoipa::path(tag = "games", operation_id = "getGameFile",
    params(("id" = String, Path, description = "Game id")),
    responses(
        (status = 200, body = GameFile, description = "The finished game as one file",
            headers(("Content-Disposition" = String, description = "`attachment; filename=\"parlour-<id>.json\"`"))),
        (status = 404, description = "No such game (`game-not-found`)", content_type = PROBLEM),
        (status = 409, description = "The game is still being played (`game-in-progress`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/games/{id}/file")]
pub async fn file(
    service: web::Data<Parlour>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&id)?;
    let file = service.game_file(id).await?;
    // A finished game's file does not change, but the receipts' keys may be replaced.
    Ok(public_but_changing(&mut HttpResponse::Ok())
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"parlour-{id}.json\""),
        ))
        .json(file))
}

/// Get the score-sheet
///
/// The public score-sheet, live while the game is played: JSON, or plain text when the
/// request prefers `text/plain`.
#[utoipa::path(tag = "games", operation_id = "getGameScorecard",
    params(("id" = String, Path, description = "Game id")),
    responses(
        (status = 200, description = "JSON; or the text alone when Accept asks for `text/plain` and not JSON",
            content((ScorecardBody = "application/json"), (String = "text/plain"))),
        (status = 404, description = "No such game (`game-not-found`), or the game keeps no score-sheet (`no-such-document`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/games/{id}/scorecard")]
pub async fn scorecard(
    service: web::Data<Parlour>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&id)?;
    let sheet = service.scoresheet(id).await?;
    let wants_text = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| {
            accept.contains("text/plain") && !accept.contains("application/json")
        });
    let mut response = HttpResponse::Ok();
    public_but_changing(&mut response).insert_header((header::VARY, "Accept"));
    if wants_text {
        return Ok(response
            .content_type(ContentType::plaintext())
            .body(sheet.text));
    }
    Ok(response.json(ScorecardBody {
        scorecard: sheet.json,
        text: sheet.text,
    }))
}

/// Export a game
///
/// A named public export of the game, e.g. `cricsheet` for GOOGLY.
#[utoipa::path(tag = "games", operation_id = "getGameExport",
    params(("id" = String, Path, description = "Game id"), ("format" = String, Path, example = "cricsheet", description = "Export name, e.g. `cricsheet`")),
    responses(
        (status = 200, description = "The export", body = Object),
        (status = 404, description = "No such game (`game-not-found`) or export (`no-such-document`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/games/{id}/exports/{format}")]
pub async fn export(
    service: web::Data<Parlour>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (id, format) = path.into_inner();
    let id = game_id(&id)?;
    let export = service.export(id, &format).await?;
    Ok(public_but_changing(&mut HttpResponse::Ok()).json(export))
}

/// How often a quiet stream sends a keep-alive comment.
pub(super) const HEARTBEAT: Duration = Duration::from_secs(15);

/// Stream a game
///
/// The caller's view as a stream of server-sent events: one `view` event now and one each time
/// the game moves (`id:` is the version), a keep-alive comment every 15 s, and the stream ends
/// after the final view. Use it to be told at once when it is your turn.
#[utoipa::path(tag = "games", operation_id = "streamGame",
    params(("id" = String, Path, description = "Game id")),
    security((), ("seat_token" = []), ("account_token" = ["games:read"]), ("stream_ticket" = [])),
    responses(
        (status = 200, description = "Server-sent events: `view` events (see `x-sse-events`) and keep-alive comments, until the view of the finished game",
            content_type = "text/event-stream", body = String,
            headers(("Cache-Control" = String, description = "`no-cache`"))),
        (status = 400, description = "Both a ticket and `Authorization` (`malformed-request`)", content_type = PROBLEM),
        (status = 401, description = "Malformed Authorization header, unknown token, or a ticket unknown, spent, expired or for another stream", content_type = PROBLEM),
        (status = 403, description = "Token of another game", content_type = PROBLEM),
        (status = 404, description = "No such game (`game-not-found`)", content_type = PROBLEM),
        (status = 429, description = "Too many requests (rate limit), or this token or client address has too many streams open (`too-many-streams`)", content_type = PROBLEM),
        (status = 503, description = "The server holds all the streams it can (`at-capacity`), or the database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/games/{id}/stream")]
pub async fn stream(
    service: web::Data<Parlour>,
    gate: web::Data<StreamGate>,
    id: web::Path<String>,
    bearer: Bearer,
    query: web::Query<StreamQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    use futures_util::StreamExt;
    let id = game_id(&id)?;
    let client = client_of(&req);
    let (permit, (caller, hold)) = match Opener::of(bearer, query.into_inner().ticket)? {
        Opener::Bearer(token) => {
            // Counted before any database work, so a flood of streams costs the server next
            // to nothing.
            let credential = token.as_deref().map(|t| Credential::presented(t, id));
            let permit = admit(&gate, credential.as_ref(), client)?;
            // Held for as long as the stream runs: revoking the account token ends it.
            let held = service
                .authenticate_holding(id, token.as_deref(), Scope::GamesRead)
                .await?;
            (permit, held)
        }
        Opener::Ticket(ticket) => {
            let credential = service
                .stream_tickets()
                .redeem(TicketedStream::Game(id), &ticket)
                .await?;
            let permit = admit(&gate, Some(&credential), client)?;
            let held = service
                .authenticate_credential_holding(id, &credential, Scope::GamesRead)
                .await?;
            (permit, held)
        }
    };
    let updates = service
        .into_inner()
        .updates(id, caller, HEARTBEAT, hold)
        .await?;
    // The permit lives as long as the stream: actix drops the body when the stream ends or the
    // client goes away, and with it the permit, which frees the slot.
    let messages = updates.map(move |update| {
        let _slot = &permit;
        let text = match update {
            Update::View(view) => match serde_json::to_string(&view) {
                Ok(json) => format!("event: view\nid: {}\ndata: {json}\n\n", view.version),
                Err(_) => String::from(": a view could not be written\n\n"),
            },
            Update::KeepAlive => String::from(": keep-alive\n\n"),
        };
        Ok::<_, actix_web::Error>(web::Bytes::from(text))
    });
    Ok(per_seat(&mut HttpResponse::Ok())
        .content_type("text/event-stream")
        .streaming(messages))
}
