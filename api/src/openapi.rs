//! The OpenAPI document. `openapi/openapi.json` in the repository is kept equal to it by a test.
//!
//! It is made in three steps:
//! 1. utoipa derives the document from the `#[utoipa::path]` attributes and the DTOs ([`ApiDoc`]);
//! 2. typed modifiers add what every operation shares (problem answers, rate limits, request
//!    ids), a variant of each DTO that carries a `game` per game, the links from a created game
//!    to its view and moves, and the examples;
//! 3. each game's own JSON Schemas, as the domain publishes them, join the components. utoipa's
//!    schema model cannot hold them (`const`, `$defs`, boolean schemas), so this last step works
//!    on the document as JSON; everything that can be typed is typed in step 2.

use std::borrow::Cow;
use std::collections::BTreeMap;

use parlour_domain::{catalog, Description, GameSchemas};
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::openapi::content::{Content, ContentBuilder};
use utoipa::openapi::header::{Header, HeaderBuilder};
use utoipa::openapi::path::{Operation, PathItem};
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{
    AdditionalProperties, AllOfBuilder, AnyOfBuilder, ArrayBuilder, ArrayItems, Discriminator,
    Object, ObjectBuilder, OneOfBuilder, Ref, Schema, SchemaType, Type,
};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::RefOr;
use utoipa::{Modify, OpenApi, PartialSchema, ToSchema};

use crate::dto;
use crate::receipts;
use crate::routes::{catalog as catalog_routes, games, health, keys, statistics};

/// The media type of every error answer (RFC 9457).
pub const PROBLEM_JSON: &str = "application/problem+json";

/// The header that names each request in the logs; every answer carries it.
pub const REQUEST_ID: &str = "x-request-id";

/// The document as served at `/openapi.json`.
pub fn spec() -> Value {
    // utoipa's document is plain data with string keys, which always serialises.
    let document = serde_json::to_value(ApiDoc::openapi()).unwrap_or(Value::Null);
    with_create_links(with_published_schemas(document))
}

/// The API document as utoipa derives it, with the typed modifiers applied.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Parlour",
        description = "A game server for five classic British card games: GIRL, The CAR Game, \
British Birds, History of England No. 2 and GOOGLY.\n\n\
Create a game with `POST /v1/games`; each seat gets a secret token. Play with `GET /v1/games/{id}` \
(your view, `to_act`, `legal_actions`) and `POST /v1/games/{id}/actions`. Every error is \
`application/problem+json` with a stable `type` (`/problems/<code>`). Every game is an append-only, \
hash-chained event log; after the game its seed is revealed and `GET /v1/games/{id}/audit` replays it.\n\n\
Each game's own types (options, views, actions, events, results) are components named after the \
game (`GirlView`, `GirlAction`, ...): a view, a create body and a created game say which game they \
are of in `game`, the discriminator.",
        version = "1.0.0",
        license(name = "MIT", identifier = "MIT")
    ),
    servers(
        (url = "/", description = "The server this document was read from"),
        (url = "http://127.0.0.1:8080", description = "A local server on the default address"),
    ),
    paths(
        catalog_routes::list, catalog_routes::show, catalog_routes::game_schemas,
        games::create, games::show, games::stream, games::act, games::events, games::state_at, games::audit, games::file,
        games::scorecard, games::export, statistics::statistics,
        health::healthz, health::readyz, keys::keys,
    ),
    components(schemas(
        dto::Status, dto::NewPlayer, dto::NewGame, dto::CreatedSeat, dto::CreatedGame, dto::GameView,
        dto::GameEvent, dto::EventPage, dto::AuditFailure, dto::AuditReport, dto::CatalogEntry,
        dto::CatalogGame, dto::Catalog, dto::GameSchemas, dto::ViewSchemas, dto::ScorecardBody, dto::CreationRecord, dto::StoredGameEvent,
        dto::LogHead, dto::GameFile, dto::ProblemDetails, dto::SeatHeader, dto::YouHeader, dto::TableResult,
        dto::TableEventData, receipts::Receipt, receipts::PublicKey, receipts::KeySet,
        AnyAction, EventData, LoggedEventData,
    )),
    modifiers(&SeatToken, &Conventions, &GameVariants, &StreamEvents, &Examples, &FreeFormObjects),
    tags(
        (name = "catalog", description = "The games on offer and their cards"),
        (name = "games", description = "Playing, reading the log, auditing"),
        (name = "operations", description = "Health checks"),
        (name = "receipts", description = "The keys that sign move receipts"),
    )
)]
pub struct ApiDoc;

/// The parts of a game the domain publishes a JSON Schema of: each is one component per game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The `options` of a create body.
    Options,
    /// A body of `POST /v1/games/{id}/actions`.
    Action,
    /// One entry of a view's `legal_actions`.
    LegalAction,
    /// The game's part of one entry of a view's `seats`.
    SeatView,
    /// A view's `public`.
    PublicView,
    /// The game's part of a view's `you`.
    PrivateView,
    /// A finished game's `result`.
    Outcome,
    /// One event with its `type`, as a finished game's log holds it.
    Event,
}

impl Part {
    /// Every part, in the order the components are written.
    pub const ALL: [Part; 8] = [
        Part::Options,
        Part::Action,
        Part::LegalAction,
        Part::SeatView,
        Part::PublicView,
        Part::PrivateView,
        Part::Outcome,
        Part::Event,
    ];

    /// What the part's components are called after the game's name.
    pub fn suffix(self) -> &'static str {
        match self {
            Part::Options => "Options",
            Part::Action => "Action",
            Part::LegalAction => "LegalAction",
            Part::SeatView => "SeatView",
            Part::PublicView => "PublicView",
            Part::PrivateView => "PrivateView",
            Part::Outcome => "Outcome",
            Part::Event => "Event",
        }
    }

    fn published(self, schemas: &GameSchemas) -> &Value {
        match self {
            Part::Options => &schemas.options,
            Part::Action => &schemas.action,
            Part::LegalAction => &schemas.legal_action,
            Part::SeatView => &schemas.view.seat,
            Part::PublicView => &schemas.view.public,
            Part::PrivateView => &schemas.view.private,
            Part::Outcome => &schemas.outcome,
            Part::Event => &schemas.event,
        }
    }
}

/// A game's name in component names: `girl` → `Girl`, `british-birds` → `BritishBirds`.
pub fn type_prefix(game: &str) -> String {
    game.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(|word| {
            let mut letters = word.chars();
            match letters.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + letters.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// The component holding one part of one game, e.g. `GirlPublicView`.
pub fn part_component(game: &str, part: Part) -> String {
    format!("{}{}", type_prefix(game), part.suffix())
}

/// The component of a game's event data: an event without its `type`, e.g. `GirlEventData`.
pub fn event_data_component(game: &str) -> String {
    format!("{}EventData", type_prefix(game))
}

/// The per-game variants of the DTOs that say which game they are of, with their unions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// `GameView`: a game as one viewer sees it.
    View,
    /// `NewGame`: the body of `POST /v1/games`.
    NewGame,
    /// `CreatedGame`: the answer to it.
    CreatedGame,
    /// `CreationRecord`: what a game's hash chain starts from.
    CreationRecord,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 4] = [
        Variant::View,
        Variant::NewGame,
        Variant::CreatedGame,
        Variant::CreationRecord,
    ];

    /// The union's component, the one the operations refer to.
    pub fn union(self) -> &'static str {
        match self {
            Variant::View => "GameView",
            Variant::NewGame => "NewGame",
            Variant::CreatedGame => "CreatedGame",
            Variant::CreationRecord => "CreationRecord",
        }
    }

    /// The component of one game's variant, e.g. `GirlView`, `GirlNewGame`.
    pub fn component(self, game: &str) -> String {
        let suffix = match self {
            Variant::View => "View",
            other => other.union(),
        };
        format!("{}{suffix}", type_prefix(game))
    }
}

fn described_games() -> Vec<Description> {
    catalog::engines()
        .into_iter()
        .map(|engine| engine.describe())
        .collect()
}

fn reference(component: &str) -> RefOr<Schema> {
    RefOr::Ref(Ref::from_schema_name(component))
}

fn null() -> RefOr<Schema> {
    ObjectBuilder::new().schema_type(Type::Null).into()
}

fn string() -> RefOr<Schema> {
    ObjectBuilder::new().schema_type(Type::String).into()
}

fn integer() -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(0))
        .into()
}

/// Any action of any game: the body of `POST /v1/games/{id}/actions`, and a finished game's
/// logged commands. A union without a discriminator (an action does not say its game), so
/// `anyOf`: two games may share a move, e.g. GIRL's and The CAR Game's `turn_up`.
pub struct AnyAction;

impl ToSchema for AnyAction {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Action")
    }
}

impl PartialSchema for AnyAction {
    fn schema() -> RefOr<Schema> {
        described_games()
            .iter()
            .fold(AnyOfBuilder::new(), |union, game| {
                union.item(reference(&part_component(game.id, Part::Action)))
            })
            .description(Some(
                "One action of the game played (see the game's `…Action` component).",
            ))
            .into()
    }
}

/// The `data` of any whole event: a game's event without its `type`, or a table event's.
pub struct EventData;

impl ToSchema for EventData {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("EventData")
    }
}

impl PartialSchema for EventData {
    fn schema() -> RefOr<Schema> {
        described_games()
            .iter()
            .fold(AnyOfBuilder::new(), |union, game| {
                union.item(reference(&event_data_component(game.id)))
            })
            .item(reference("TableEventData"))
            .description(Some(
                "A whole event's data: one of a game's events (its `…EventData` component; the \
                 event's `type` is beside `data`), or a table event's (`table.…` types).",
            ))
            .into()
    }
}

/// The `data` of an event in `GET /v1/games/{id}/events`: whole once the game is over, and
/// while it is in progress with what the viewer could not see taken out.
pub struct LoggedEventData;

impl ToSchema for LoggedEventData {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("LoggedEventData")
    }
}

impl PartialSchema for LoggedEventData {
    fn schema() -> RefOr<Schema> {
        AnyOfBuilder::new()
            .item(reference("EventData"))
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::Object)
                    .additional_properties(Some(AdditionalProperties::FreeForm(true)))
                    .title(Some("RedactedEventData"))
                    .description(Some(
                        "While the game is in progress: the event with every card the viewer \
                         could not see at the table taken out (each game's rules document says \
                         how, e.g. GIRL's `lay` becomes `{\"seat\": 0, \"count\": 3}`).",
                    )),
            )
            .description(Some(
                "The event's data as the viewer may see it: whole once the game is over.",
            ))
            .into()
    }
}

/// The bearer scheme of seat tokens.
struct SeatToken;

impl Modify for SeatToken {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "seat_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("The seat token handed out when the game was created."))
                    .build(),
            ),
        );
    }
}

/// Every operation of a path item.
fn operations_mut(item: &mut PathItem) -> impl Iterator<Item = &mut Operation> {
    [
        &mut item.get,
        &mut item.put,
        &mut item.post,
        &mut item.delete,
        &mut item.options,
        &mut item.head,
        &mut item.patch,
        &mut item.trace,
    ]
    .into_iter()
    .filter_map(Option::as_mut)
}

/// The operation with this id.
fn operation_mut<'a>(
    openapi: &'a mut utoipa::openapi::OpenApi,
    id: &str,
) -> Option<&'a mut Operation> {
    openapi
        .paths
        .paths
        .values_mut()
        .flat_map(operations_mut)
        .find(|operation| operation.operation_id.as_deref() == Some(id))
}

fn header(schema: RefOr<Schema>, description: &str) -> Header {
    HeaderBuilder::new()
        .schema(schema)
        .description(Some(description))
        .build()
}

fn problem_content() -> Content {
    ContentBuilder::new()
        .schema(Some(reference("Problem")))
        .build()
}

fn problem_response(description: &str) -> RefOr<Response> {
    RefOr::T(
        ResponseBuilder::new()
            .description(description)
            .content(PROBLEM_JSON, problem_content())
            .build(),
    )
}

fn is_error(status: &str) -> bool {
    status.starts_with('4') || status.starts_with('5')
}

/// What every operation shares: errors as problems (with `4XX`/`5XX` defaults), the rate
/// limit's 429 on `/v1`, 413 and 415 where there is a body, `Retry-After` where waiting helps,
/// the request id on every answer, and an explicit `security` on public operations.
struct Conventions;

impl Modify for Conventions {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (path, item) in openapi.paths.paths.iter_mut() {
            let rate_limited = path.starts_with("/v1/");
            for operation in operations_mut(item) {
                let responses = &mut operation.responses.responses;
                if rate_limited {
                    responses.entry("429".into()).or_insert_with(|| {
                        problem_response("Too many requests from this token or client address")
                    });
                }
                if operation.request_body.is_some() {
                    responses.entry("413".into()).or_insert_with(|| {
                        problem_response("The body is larger than the server accepts")
                    });
                    responses
                        .entry("415".into())
                        .or_insert_with(|| problem_response("The body is not `application/json`"));
                }
                responses.entry("4XX".into()).or_insert_with(|| {
                    problem_response(
                        "Any other client error, e.g. 405 for a method the path does not allow \
                         (with `Allow`), 414 for a URI too long, or 400 for a request HTTP \
                         cannot parse",
                    )
                });
                responses
                    .entry("5XX".into())
                    .or_insert_with(|| problem_response("A fault on the server's side"));
                for (status, response) in responses.iter_mut() {
                    let RefOr::T(response) = response else {
                        continue;
                    };
                    if is_error(status) {
                        response.content.clear();
                        response
                            .content
                            .insert(PROBLEM_JSON.to_string(), problem_content());
                    }
                    if status == "429" {
                        add_rate_limit_headers(response);
                    }
                    if status == "503" || status == "429" {
                        response.headers.insert(
                            "Retry-After".into(),
                            header(integer(), "Seconds to wait before trying again"),
                        );
                    }
                    response.headers.insert(
                        REQUEST_ID.into(),
                        header(
                            string(),
                            "The request's id, as the server's logs name it: the client's own \
                             when it sent one, else one the server made",
                        ),
                    );
                }
                // Without it a public operation would inherit nothing and say nothing: an
                // empty list says in so many words that no token is needed.
                if operation.security.is_none() {
                    operation.security = Some(Vec::new());
                }
            }
        }
    }
}

fn add_rate_limit_headers(response: &mut Response) {
    for (name, description) in [
        ("RateLimit-Limit", "Requests allowed in the current window"),
        ("RateLimit-Remaining", "Requests left in the current window"),
        ("RateLimit-Reset", "Seconds until the window resets"),
    ] {
        response
            .headers
            .insert(name.into(), header(string(), description));
    }
}

/// Puts `schema` in place of property `name`, keeping the property's description.
fn replace_property(object: &mut Object, name: &str, schema: RefOr<Schema>) {
    let description = object.properties.get(name).and_then(description_of);
    let mut schema = schema;
    if let Some(description) = description {
        set_description(&mut schema, description);
    }
    object.properties.insert(name.to_string(), schema);
}

fn description_of(schema: &RefOr<Schema>) -> Option<String> {
    match schema {
        RefOr::Ref(reference) => {
            Some(reference.description.clone()).filter(|text| !text.is_empty())
        }
        RefOr::T(Schema::Object(object)) => object.description.clone(),
        RefOr::T(Schema::Array(array)) => array.description.clone(),
        RefOr::T(Schema::OneOf(one_of)) => one_of.description.clone(),
        RefOr::T(Schema::AllOf(all_of)) => all_of.description.clone(),
        RefOr::T(Schema::AnyOf(any_of)) => any_of.description.clone(),
        RefOr::T(_) => None,
    }
}

fn set_description(schema: &mut RefOr<Schema>, description: String) {
    match schema {
        RefOr::Ref(reference) => reference.description = description,
        RefOr::T(Schema::Object(object)) => object.description = Some(description),
        RefOr::T(Schema::Array(array)) => array.description = Some(description),
        RefOr::T(Schema::OneOf(one_of)) => one_of.description = Some(description),
        RefOr::T(Schema::AllOf(all_of)) => all_of.description = Some(description),
        RefOr::T(Schema::AnyOf(any_of)) => any_of.description = Some(description),
        RefOr::T(_) => {}
    }
}

/// `game`'s id as the only value a string may take: what makes the variants exclusive, and
/// the discriminator's property.
fn game_id(game: &Description) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some([game.id]))
        .into()
}

/// `item`, or null.
fn nullable(item: RefOr<Schema>) -> RefOr<Schema> {
    OneOfBuilder::new().item(item).item(null()).into()
}

/// A list of `items` as long as the game has players.
fn per_player(game: &Description, items: RefOr<Schema>) -> RefOr<Schema> {
    ArrayBuilder::new()
        .items(items)
        .min_items(Some(game.min_players))
        .max_items(Some(game.max_players))
        .into()
}

/// One game's variant of a DTO: the DTO with the generic parts replaced by the game's own.
fn variant_of(variant: Variant, template: &Object, game: &Description) -> Object {
    let id = game.id;
    let part = |part: Part| reference(&part_component(id, part));
    let mut object = template.clone();
    object.title = Some(match variant {
        Variant::View => format!("{} view", game.name),
        Variant::NewGame => format!("A new game of {}", game.name),
        Variant::CreatedGame => format!("A created game of {}", game.name),
        Variant::CreationRecord => format!("The creation record of a game of {}", game.name),
    });
    replace_property(&mut object, "game", game_id(game));
    match variant {
        Variant::View => {
            replace_property(&mut object, "options", part(Part::Options));
            replace_property(
                &mut object,
                "seats",
                per_player(
                    game,
                    AllOfBuilder::new()
                        .item(reference("SeatHeader"))
                        .item(part(Part::SeatView))
                        .into(),
                ),
            );
            replace_property(&mut object, "public", part(Part::PublicView));
            replace_property(
                &mut object,
                "you",
                nullable(
                    AllOfBuilder::new()
                        .item(reference("YouHeader"))
                        .item(part(Part::PrivateView))
                        .into(),
                ),
            );
            replace_property(
                &mut object,
                "legal_actions",
                ArrayBuilder::new().items(part(Part::LegalAction)).into(),
            );
            replace_property(
                &mut object,
                "result",
                AnyOfBuilder::new()
                    .item(part(Part::Outcome))
                    .item(reference("TableResult"))
                    .item(null())
                    .into(),
            );
        }
        Variant::NewGame => {
            replace_property(&mut object, "options", nullable(part(Part::Options)));
            replace_property(
                &mut object,
                "players",
                per_player(game, reference("NewPlayer")),
            );
        }
        Variant::CreatedGame => {
            replace_property(&mut object, "options", part(Part::Options));
            replace_property(
                &mut object,
                "seats",
                per_player(game, reference("CreatedSeat")),
            );
        }
        Variant::CreationRecord => {
            replace_property(&mut object, "options", part(Part::Options));
            let player = ObjectBuilder::new()
                .schema_type(Type::Object)
                .property("name", string())
                .required("name")
                .into();
            replace_property(&mut object, "players", per_player(game, player));
        }
    }
    object
}

/// Each DTO that says which game it is of becomes a union of one variant per game, told apart
/// by `game`, so that a generated client types a GIRL view as a GIRL view.
struct GameVariants;

impl Modify for GameVariants {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let Some(components) = openapi.components.as_mut() else {
            return;
        };
        let games = described_games();
        for variant in Variant::ALL {
            let Some(RefOr::T(Schema::Object(template))) =
                components.schemas.get(variant.union()).cloned()
            else {
                continue;
            };
            let mut discriminator = Discriminator::new("game");
            let mut union = OneOfBuilder::new();
            for game in &games {
                let name = variant.component(game.id);
                components.schemas.insert(
                    name.clone(),
                    RefOr::T(Schema::Object(variant_of(variant, &template, game))),
                );
                discriminator
                    .mapping
                    .insert(game.id.to_string(), format!("#/components/schemas/{name}"));
                union = union.item(reference(&name));
            }
            let union = union
                .description(template.description.clone())
                .discriminator(Some(discriminator));
            components
                .schemas
                .insert(variant.union().to_string(), union.into());
        }
    }
}

/// The event stream's wire format and event types.
struct StreamEvents;

impl Modify for StreamEvents {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let Some(operation) = operation_mut(openapi, "streamGame") else {
            return;
        };
        let Some(RefOr::T(ok)) = operation.responses.responses.get_mut("200") else {
            return;
        };
        let Some(content) = ok.content.get_mut("text/event-stream") else {
            return;
        };
        content.schema = Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .description(Some(
                    "Server-sent events (the HTML standard's `text/event-stream`). Two kinds of \
                     message:\n\n\
                     - `event: view`, `id: <version>`, `data: <GameView as JSON, one line>`: the \
                     caller's view, once at the start and again each time the game moves. After \
                     the view of a finished game the stream ends.\n\
                     - a comment line (starting with `:`), `: keep-alive` every 15 seconds while \
                     nothing happens; clients ignore comments.\n\n\
                     Reconnect with `GET` again (the first message is the view as it is then).",
                ))
                .into(),
        );
        content.example = Some(Value::String(
            "event: view\nid: 1\ndata: {\"id\":\"…\",\"game\":\"girl\",\"version\":1,…}\n\n: keep-alive\n\n"
                .to_string(),
        ));
        let mut events = Map::new();
        events.insert(
            "view".into(),
            serde_json::json!({
                "description": "The caller's view; `id` is its version.",
                "data": {"$ref": "#/components/schemas/GameView"},
            }),
        );
        content.extensions = Some(
            utoipa::openapi::extensions::ExtensionsBuilder::new()
                .add("x-sse-events", Value::Object(events))
                .build(),
        );
    }
}

/// Real answers of the server (captured from a GIRL game; `tests/api/contract.rs` checks each
/// against its schema), by operation, status and media type.
struct Examples;

/// Where each example goes: operation, status (`request` for the body sent) and the example.
const EXAMPLES: &[(&str, &str, &str)] = &[
    (
        "createGame",
        "request",
        include_str!("../../openapi/examples/create-request.json"),
    ),
    (
        "createGame",
        "201",
        include_str!("../../openapi/examples/create-201.json"),
    ),
    (
        "getGame",
        "200",
        include_str!("../../openapi/examples/view-200.json"),
    ),
    (
        "postAction",
        "request",
        include_str!("../../openapi/examples/action-request.json"),
    ),
    (
        "postAction",
        "200",
        include_str!("../../openapi/examples/action-200.json"),
    ),
    (
        "postAction",
        "409",
        include_str!("../../openapi/examples/action-409.json"),
    ),
    (
        "postAction",
        "422",
        include_str!("../../openapi/examples/action-422.json"),
    ),
    (
        "listGameEvents",
        "200",
        include_str!("../../openapi/examples/events-200.json"),
    ),
];

impl Modify for Examples {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (operation_id, status, text) in EXAMPLES {
            // The files are checked by the contract test; one that is not JSON is left out
            // rather than served broken.
            let Ok(example) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            let Some(operation) = operation_mut(openapi, operation_id) else {
                continue;
            };
            let content = if *status == "request" {
                operation
                    .request_body
                    .as_mut()
                    .and_then(|body| body.content.values_mut().next())
            } else {
                match operation.responses.responses.get_mut(*status) {
                    Some(RefOr::T(response)) => response.content.values_mut().next(),
                    _ => None,
                }
            };
            if let Some(content) = content {
                content.example = Some(example);
            }
        }
    }
}

/// An object schema with no properties means any object: saying so (`additionalProperties:
/// true`) keeps generated clients from typing it as an empty record.
struct FreeFormObjects;

impl Modify for FreeFormObjects {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        if let Some(components) = openapi.components.as_mut() {
            for schema in components.schemas.values_mut() {
                open_free_form(schema);
            }
        }
        for item in openapi.paths.paths.values_mut() {
            for operation in operations_mut(item) {
                let bodies = operation
                    .request_body
                    .iter_mut()
                    .flat_map(|body| body.content.values_mut());
                let answers = operation
                    .responses
                    .responses
                    .values_mut()
                    .filter_map(|response| match response {
                        RefOr::T(response) => Some(response.content.values_mut()),
                        RefOr::Ref(_) => None,
                    })
                    .flatten();
                for content in bodies.chain(answers) {
                    if let Some(schema) = content.schema.as_mut() {
                        open_free_form(schema);
                    }
                }
            }
        }
    }
}

fn is_object_type(schema_type: &SchemaType) -> bool {
    match schema_type {
        SchemaType::Type(Type::Object) => true,
        SchemaType::Array(types) => types.contains(&Type::Object),
        _ => false,
    }
}

fn open_free_form(schema: &mut RefOr<Schema>) {
    let RefOr::T(schema) = schema else {
        return;
    };
    match schema {
        Schema::Object(object) => {
            if is_object_type(&object.schema_type)
                && object.properties.is_empty()
                && object.additional_properties.is_none()
            {
                object.additional_properties = Some(Box::new(AdditionalProperties::FreeForm(true)));
            }
            for property in object.properties.values_mut() {
                open_free_form(property);
            }
        }
        Schema::Array(array) => {
            if let ArrayItems::RefOrSchema(items) = &mut array.items {
                open_free_form(items);
            }
        }
        Schema::OneOf(one_of) => one_of.items.iter_mut().for_each(open_free_form),
        Schema::AllOf(all_of) => all_of.items.iter_mut().for_each(open_free_form),
        Schema::AnyOf(any_of) => any_of.items.iter_mut().for_each(open_free_form),
        _ => {}
    }
}

/// A link of the document (OpenAPI's Link Object). utoipa 5.5's own writes its fields in
/// snake_case, which no tool reads, so links are added to the document as JSON, from this.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct OperationLink {
    operation_id: &'static str,
    parameters: BTreeMap<&'static str, String>,
    description: String,
}

/// The links from a created game to what its players do next, with the game's id and the
/// seats' tokens from the answer, so a client (or a stateful fuzzer) can follow them.
fn create_links() -> BTreeMap<String, OperationLink> {
    const ID: &str = "$response.body#/id";
    let mut links = BTreeMap::new();
    // Every game has a seat 0 (the contract test checks); most have a seat 1 as well.
    for seat in 0..2 {
        let token = format!("Bearer {{$response.body#/seats/{seat}/token}}");
        links.insert(
            format!("ViewAsSeat{seat}"),
            OperationLink {
                operation_id: "getGame",
                parameters: BTreeMap::from([
                    ("path.id", ID.to_string()),
                    ("header.Authorization", token.clone()),
                ]),
                description: match seat {
                    0 => String::from("The game as seat 0 sees it"),
                    _ => format!("The game as seat {seat} sees it, in a game with that seat"),
                },
            },
        );
        links.insert(
            format!("MoveAsSeat{seat}"),
            OperationLink {
                operation_id: "postAction",
                parameters: BTreeMap::from([
                    ("path.id", ID.to_string()),
                    ("header.Authorization", token),
                ]),
                description: format!(
                    "A move for seat {seat}: a body from its view's `legal_actions`"
                ),
            },
        );
    }
    for (name, operation_id, description) in [
        (
            "ViewAsSpectator",
            "getGame",
            "The game as a spectator sees it",
        ),
        (
            "Events",
            "listGameEvents",
            "The log, as a spectator sees it",
        ),
        ("Audit", "getGameAudit", "The audit of the log so far"),
    ] {
        links.insert(
            name.to_string(),
            OperationLink {
                operation_id,
                parameters: BTreeMap::from([("path.id", ID.to_string())]),
                description: description.to_string(),
            },
        );
    }
    links.insert(
        "StateAfterDeal".to_string(),
        OperationLink {
            operation_id: "getGameState",
            parameters: BTreeMap::from([
                ("path.id", ID.to_string()),
                ("query.at", "$response.body#/version".to_string()),
            ]),
            description: "The game just after the deal, as a spectator saw it".to_string(),
        },
    );
    links
}

fn with_create_links(mut document: Value) -> Value {
    let created = document.pointer_mut("/paths/~1v1~1games/post/responses/201");
    if let (Some(Value::Object(created)), Ok(links)) =
        (created, serde_json::to_value(create_links()))
    {
        created.insert("links".into(), links);
    }
    document
}

/// The document with every game's published JSON Schemas among its components: each part as
/// `<Game><Part>`, except the event, whose variants become `<Game>EventData` (the log gives an
/// event's `type` beside its data).
fn with_published_schemas(mut document: Value) -> Value {
    let Some(components) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return document;
    };
    let games = described_games();
    // Names a definition must not take: the per-game components made from the parts.
    let reserved: Vec<String> = games
        .iter()
        .flat_map(|game| {
            let parts = Part::ALL.map(|part| part_component(game.id, part));
            let variants = Variant::ALL.map(|variant| variant.component(game.id));
            parts
                .into_iter()
                .chain(variants)
                .chain([event_data_component(game.id)])
        })
        .collect();
    for engine in catalog::engines() {
        let id = engine.describe().id;
        let published = engine.schemas();
        for part in Part::ALL {
            let schema =
                add_definitions(components, &reserved, id, part, part.published(&published));
            match part {
                Part::Event => {
                    components.insert(event_data_component(id), event_data(&schema));
                }
                Part::Action => {
                    components.insert(part_component(id, part), closed_variants(schema));
                }
                _ => {
                    components.insert(part_component(id, part), schema);
                }
            }
        }
    }
    document
}

/// An action schema whose variants admit no field they do not name: the server refuses a move
/// with any field beyond the action's own (it keeps only the canonical action in the log),
/// which the domain's schemas of tagged enums do not say themselves.
fn closed_variants(mut schema: Value) -> Value {
    let union = if schema.get("oneOf").is_some() {
        "oneOf"
    } else {
        "anyOf"
    };
    let variants = schema.get_mut(union).and_then(Value::as_array_mut);
    for variant in variants.into_iter().flatten() {
        if let Some(variant) = variant.as_object_mut() {
            if variant.contains_key("properties") {
                variant
                    .entry("additionalProperties")
                    .or_insert(Value::Bool(false));
            }
        }
    }
    schema
}

/// What a definition of `game` is called in the components: `Card_for_Girl` → `GirlCard`,
/// `BritishBirdsCard` stays as it is.
fn definition_component(prefix: &str, name: &str) -> String {
    let name = name.split("_for_").next().unwrap_or(name);
    if name.starts_with(prefix) {
        name.to_string()
    } else {
        format!("{prefix}{name}")
    }
}

/// Puts the `$defs` of one part of one game into the components, each named after the game
/// (`GirlCard`), and answers with the part's schema, its `$ref`s pointed at them. A definition
/// that two parts of a game give differently gets the part's name too (`GirlEventCard`).
fn add_definitions(
    components: &mut Map<String, Value>,
    reserved: &[String],
    game: &str,
    part: Part,
    schema: &Value,
) -> Value {
    let prefix = type_prefix(game);
    let mut schema = schema.clone();
    let defs = match schema.as_object_mut() {
        Some(object) => {
            object.remove("$schema");
            match object.remove("$defs") {
                Some(Value::Object(defs)) => defs,
                _ => Map::new(),
            }
        }
        None => Map::new(),
    };
    let mut names: BTreeMap<String, String> = defs
        .keys()
        .map(|name| (name.clone(), definition_component(&prefix, name)))
        .collect();
    // A definition keeps the game-wide name unless that name is taken by something else;
    // renaming one changes those that point at it, so settle every name first.
    loop {
        let mut renamed = false;
        for (name, def) in &defs {
            let component = &names[name];
            let own = format!("{prefix}{}{name}", part.suffix());
            if *component == own {
                continue;
            }
            let rewritten = with_refs_renamed(def, &names);
            let shared = names.iter().any(|(other, component_of_other)| {
                other != name && component_of_other == component
            });
            let taken = reserved.contains(component)
                || shared
                || components
                    .get(component)
                    .is_some_and(|existing| existing != &rewritten);
            if taken {
                names.insert(name.clone(), own);
                renamed = true;
            }
        }
        if !renamed {
            break;
        }
    }
    for (name, def) in &defs {
        components.insert(names[name].clone(), with_refs_renamed(def, &names));
    }
    with_refs_renamed(&schema, &names)
}

/// `schema` with each `#/$defs/<name>` reference pointed at the component `names` gives.
fn with_refs_renamed(schema: &Value, names: &BTreeMap<String, String>) -> Value {
    match schema {
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, value)| {
                    let value = match (key.as_str(), value) {
                        ("$ref", Value::String(target)) => {
                            let renamed = target
                                .strip_prefix("#/$defs/")
                                .and_then(|name| names.get(name))
                                .map(|component| format!("#/components/schemas/{component}"));
                            Value::String(renamed.unwrap_or_else(|| target.clone()))
                        }
                        _ => with_refs_renamed(value, names),
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| with_refs_renamed(item, names))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The data of a game's events, as the log shows it beside each event's `type`: each variant of
/// the event schema without its `type`. The variants need not be told apart by their data
/// alone, so `anyOf`.
fn event_data(event: &Value) -> Value {
    let variants = event
        .get("oneOf")
        .or_else(|| event.get("anyOf"))
        .and_then(Value::as_array);
    let Some(variants) = variants else {
        return serde_json::json!({"description": "The event's data (the event without its `type`)."});
    };
    let data: Vec<Value> = variants.iter().map(without_type).collect();
    serde_json::json!({
        "description": "The data of one of the game's events: the event without its `type`, \
                        which the log gives beside it.",
        "anyOf": data,
    })
}

/// One event variant without its `type` tag, titled with the tag.
fn without_type(variant: &Value) -> Value {
    let mut variant = variant.clone();
    let Some(object) = variant.as_object_mut() else {
        return variant;
    };
    let tag = object
        .get("properties")
        .and_then(|properties| properties.get("type"))
        .and_then(|tag| tag.get("const").or_else(|| tag.pointer("/enum/0")))
        .cloned();
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        properties.remove("type");
    }
    if let Some(Value::Array(required)) = object.get_mut("required") {
        required.retain(|name| name != "type");
    }
    if let Some(Value::String(tag)) = tag {
        object.insert("title".into(), Value::String(tag));
    }
    variant
}
