//! The OpenAPI document. `openapi/openapi.json` in the repository is kept equal to it by a test.
//!
//! It is made in three steps:
//! 1. utoipa derives the document from the `#[utoipa::path]` attributes and the DTOs ([`ApiDoc`]);
//! 2. typed modifiers add what every operation shares (problem answers, rate limits, request
//!    ids, explicit security), a variant per game of each DTO that carries a `game`
//!    (`per_game`), the event stream's format, and the examples;
//! 3. on the document as JSON: each game's own JSON Schemas, as the domain publishes them, join
//!    the components (utoipa's schema model cannot hold them: `const`, `$defs`, boolean
//!    schemas), and the links from a created game (utoipa's link type writes its fields in
//!    snake_case). Everything that can be typed is typed in step 2.

use std::collections::HashMap;
use std::sync::OnceLock;
use utoipa_actix_web::AppExt;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Map, Value};
use utoipa::openapi::content::{Content, ContentBuilder};
use utoipa::openapi::header::{Header, HeaderBuilder};
use utoipa::openapi::path::{Operation, PathItem};
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{
    AdditionalProperties, ArrayItems, ObjectBuilder, Schema, SchemaType, Type,
};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::RefOr;
use utoipa::{Modify, OpenApi};

use crate::dto;
use crate::receipts;
use crate::scopes::Scope;
use crate::wire::{described_games, reference};

mod per_game;
pub mod problem_examples;

pub use crate::wire::{AnyAction, EventData};
pub use per_game::{
    event_data_component, event_page, logged_union, part_component, type_prefix, Part, Variant,
    TABLE_EVENTS,
};
use per_game::{with_published_schemas, GameVariants};

/// The media type of every error answer (RFC 9457).
pub const PROBLEM_JSON: &str = "application/problem+json";

/// The header that names each request in the logs; every answer carries it.
pub const REQUEST_ID: &str = "x-request-id";

/// The document as served at `/openapi.json`.
pub fn spec() -> Value {
    // The operations come from the routes as the server registers them (`routes::configure`),
    // so the document and the server cannot disagree; the modifiers then see every operation.
    let (_, mut document) = actix_web::App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(crate::routes::configure)
        .split_for_parts();
    for modifier in [
        &SeatToken as &dyn Modify,
        &Conventions,
        &GameVariants,
        &StreamEvents,
        &Examples,
        &FreeFormObjects,
    ] {
        modifier.modify(&mut document);
    }
    // utoipa's document is plain data with string keys, which always serialises.
    let document = serde_json::to_value(document).unwrap_or(Value::Null);
    problem_examples::with_problem_examples(with_generator_friendly_unions(with_unique_titles(
        with_scopes(with_webhooks(with_account_links(with_create_links(
            without_null_parameters(closed_seat_plans(with_published_schemas(document))),
        )))),
    )))
}

/// Two shapes of union that mean what they say but that code generators misread, rewritten to
/// shapes they read (`clients/python/check.sh` holds the Python generator to it):
/// - a `oneOf` of two or more string constants becomes one `enum` (generators that check
///   each alternative in turn tried only the first constant and refused every other value);
///   the constants' descriptions join the union's;
/// - an object property of a component's union alternative that is itself an inline object
///   becomes a component of its own (`{Component}{Tag}{Property}`, where `Tag` is the
///   alternative's one-value tag if it has one), since generators named such inner models
///   after the alternative's position and made two of one name.
fn with_generator_friendly_unions(mut document: Value) -> Value {
    let Some(Value::Object(schemas)) = document.pointer_mut("/components/schemas") else {
        return document;
    };
    for schema in schemas.values_mut() {
        enum_choices(schema);
    }
    let mut hoisted: Vec<(String, Value)> = Vec::new();
    for (name, schema) in schemas.iter_mut() {
        let Some(Value::Array(alternatives)) = schema.get_mut("oneOf") else {
            continue;
        };
        for alternative in alternatives.iter_mut() {
            let tag = one_value_tag(alternative);
            let Some(Value::Object(properties)) = alternative.get_mut("properties") else {
                continue;
            };
            for (property, inner) in properties.iter_mut() {
                if inner.get("type").and_then(Value::as_str) != Some("object") {
                    continue;
                }
                let component = format!("{name}{tag}{}", pascal_case(property));
                let mut taken = inner.take();
                if let Value::Object(map) = &mut taken {
                    map.insert("title".into(), json!(component));
                }
                *inner = json!({"$ref": format!("#/components/schemas/{component}")});
                hoisted.push((component, taken));
            }
        }
    }
    for (component, schema) in hoisted {
        schemas.entry(component).or_insert(schema);
    }
    document
}

/// `text` as a type name: `ended_by` becomes `EndedBy`.
fn pascal_case(text: &str) -> String {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

/// The one value an alternative's tag property can take (`"ended_by": {"enum": ["forfeit"]}`),
/// as a type name; empty when it has none.
fn one_value_tag(alternative: &Value) -> String {
    let Some(Value::Object(properties)) = alternative.get("properties") else {
        return String::new();
    };
    properties
        .values()
        .find_map(|property| {
            let one = match (property.get("const"), property.get("enum")) {
                (Some(Value::String(value)), _) => Some(value.as_str()),
                (_, Some(Value::Array(values))) if values.len() == 1 => values[0].as_str(),
                _ => None,
            };
            one.map(pascal_case)
        })
        .unwrap_or_default()
}

/// A string constant alternative: `{"const": "tie", "type": "string", "description": …}`.
fn string_constant(alternative: &Value) -> Option<(String, Option<String>)> {
    let Value::Object(map) = alternative else {
        return None;
    };
    let value = map.get("const")?.as_str()?.to_string();
    let plain = map
        .keys()
        .all(|key| matches!(key.as_str(), "const" | "type" | "description" | "title"));
    plain.then(|| {
        let description = map
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string);
        (value, description)
    })
}

/// Every `oneOf` of string constants under `node` as one `enum` (see above).
fn enum_choices(node: &mut Value) {
    let Value::Object(map) = node else {
        if let Value::Array(items) = node {
            items.iter_mut().for_each(enum_choices);
        }
        return;
    };
    for (key, value) in map.iter_mut() {
        if !matches!(
            key.as_str(),
            "example" | "examples" | "default" | "const" | "enum"
        ) {
            enum_choices(value);
        }
    }
    let Some(Value::Array(alternatives)) = map.get("oneOf") else {
        return;
    };
    let constants: Vec<(String, Option<String>)> =
        alternatives.iter().filter_map(string_constant).collect();
    if constants.len() < 2 {
        return;
    }
    let values: Vec<String> = constants.iter().map(|(value, _)| value.clone()).collect();
    let listed: Vec<String> = constants
        .iter()
        .map(|(value, description)| match description {
            Some(description) => format!("`{value}`: {description}"),
            None => format!("`{value}`"),
        })
        .collect();
    let others: Vec<Value> = alternatives
        .iter()
        .filter(|alternative| string_constant(alternative).is_none())
        .cloned()
        .collect();
    if others.is_empty() {
        let before = map
            .get("description")
            .and_then(Value::as_str)
            .map(|text| format!("{text}\n\n"))
            .unwrap_or_default();
        map.remove("oneOf");
        map.insert("type".into(), json!("string"));
        map.insert("enum".into(), json!(values));
        map.insert(
            "description".into(),
            json!(format!("{before}{}", listed.join("\n"))),
        );
    } else {
        let mut alternatives = others;
        alternatives.push(json!({
            "type": "string",
            "enum": values,
            "description": listed.join("\n"),
        }));
        map.insert("oneOf".into(), Value::Array(alternatives));
    }
}

/// Every `title` in the components unique: a component's is its own name, and a title inside
/// it (a variant's, say) is prefixed with that name. The games' schemas come from the domain,
/// where each game's are titled alike (`Outcome`, `PublicView`, a variant `deal`); generators
/// that name classes by title (openapi-python-client) would otherwise write one class for five
/// games' outcomes, and drop the rest.
fn with_unique_titles(mut document: Value) -> Value {
    /// Values, not schemas, sit under these keys: a `title` there is data.
    fn retitle_below(key: &str, value: &mut Value, owner: &str) {
        if !matches!(key, "example" | "examples" | "default" | "const" | "enum") {
            retitle(value, owner);
        }
    }
    fn retitle(node: &mut Value, owner: &str) {
        match node {
            Value::Object(map) => {
                if let Some(Value::String(title)) = map.get_mut("title") {
                    let pascal = pascal_case(title);
                    if !pascal.starts_with(owner) {
                        *title = format!("{owner}{pascal}");
                    }
                }
                for (key, value) in map.iter_mut() {
                    retitle_below(key, value, owner);
                }
            }
            Value::Array(items) => {
                for item in items {
                    retitle(item, owner);
                }
            }
            _ => {}
        }
    }
    if let Some(Value::Object(schemas)) = document.pointer_mut("/components/schemas") {
        for (name, schema) in schemas.iter_mut() {
            if let Value::Object(map) = schema {
                if map.contains_key("title") {
                    map.insert("title".into(), json!(name));
                }
                for (key, value) in map.iter_mut() {
                    if key != "title" {
                        retitle_below(key, value, name);
                    }
                }
            }
        }
    }
    document
}

/// The scopes: each route names the one it needs on `account_token` (declared once, on the
/// route); from that, every such operation also names the OAuth scheme an app's token comes
/// through, and says what a token without the scope is answered.
fn with_scopes(mut document: Value) -> Value {
    let scopes: serde_json::Map<String, Value> = Scope::ALL
        .into_iter()
        .map(|scope| (scope.name().to_string(), json!(scope.description())))
        .collect();
    if let Some(Value::Object(schemes)) = document.pointer_mut("/components/securitySchemes") {
        schemes.insert(
            "oauth2".into(),
            json!({
                "type": "oauth2",
                "description": "An account token granted to an app by the player, through OAuth 2.0's authorization code flow with PKCE (S256), for public clients: no registration and no client secret. The token is an ordinary account token that holds only the scopes approved. Metadata: `/.well-known/oauth-authorization-server` (RFC 8414); revocation: `POST /oauth/revoke` (RFC 7009). See docs/integrators.md.",
                "flows": {"authorizationCode": {
                    "authorizationUrl": "/play/authorize",
                    "tokenUrl": "/oauth/token",
                    "scopes": scopes,
                }},
            }),
        );
    }
    let Some(Value::Object(paths)) = document.get_mut("paths") else {
        return document;
    };
    for item in paths.values_mut() {
        let Value::Object(item) = item else { continue };
        for operation in item.values_mut() {
            let Some(Value::Array(security)) = operation.get_mut("security") else {
                continue;
            };
            let Some(needed) = security
                .iter()
                .find_map(|requirement| requirement.get("account_token").cloned())
            else {
                continue;
            };
            security.push(json!({"oauth2": needed}));
            let Some(scope) = needed.get(0).and_then(Value::as_str).map(str::to_string) else {
                continue;
            };
            let told = format!(
                "The account token lacks the scope `{scope}` (`insufficient-scope`, naming it in \
                 `scope` and in `WWW-Authenticate`)"
            );
            if let Some(Value::Object(responses)) = operation.get_mut("responses") {
                match responses.get_mut("403") {
                    Some(Value::Object(answer)) => {
                        let before = answer
                            .get("description")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string();
                        answer.insert("description".into(), json!(format!("{before}; or: {told}")));
                    }
                    _ => {
                        responses.insert(
                            "403".into(),
                            json!({
                                "description": told,
                                "headers": {
                                    "WWW-Authenticate": {"description": "`Bearer realm=\"parlour\", error=\"insufficient_scope\", scope=\"…\"`", "schema": {"type": "string"}},
                                    REQUEST_ID: {"description": "The request's id, as the server's logs name it", "schema": {"type": "string"}},
                                },
                                "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
                            }),
                        );
                    }
                }
            }
        }
    }
    document
}

/// The messages Parlour sends to registered endpoints, as OpenAPI 3.1 `webhooks`: one per event
/// type, each a signed `POST` of a `WebhookPayload` (`docs/webhooks.md`). utoipa has no
/// `webhooks`, so they are added to the document here.
fn with_webhooks(mut document: Value) -> Value {
    use crate::dto::WebhookEventType as E;
    let header = |name: &str, description: &str| {
        serde_json::json!({
            "name": name, "in": "header", "required": true,
            "description": description, "schema": {"type": "string"}
        })
    };
    let mut hooks = serde_json::Map::new();
    for (event, when) in [
        (
            E::GameStarted,
            "The last seat of one of the account's hosted games was taken.",
        ),
        (
            E::GameYourTurn,
            "A commit left one of the account's seats to act.",
        ),
        (
            E::GameDeadlineNear,
            "One of the account's seats has used 80 % of its time for this move.",
        ),
        (
            E::GameTimedOut,
            "One of the account's seats ran out of time.",
        ),
        (E::GameFinished, "One of the account's games is over."),
        (
            E::MatchFinished,
            "A match the account plays in is over: `match` holds its standings.",
        ),
        (
            E::InvitationAccepted,
            "Someone took a seat of one of the account's games.",
        ),
        (
            E::InvitationReceived,
            "A seat of a game is held for the account: `data` is its row, asking it to claim.",
        ),
        (E::WebhookTest, "The endpoint's owner asked for a ping."),
    ] {
        let id: String = event
            .name()
            .split(['.', '_'])
            .map(|word| {
                let mut chars = word.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_uppercase().chain(chars).collect::<String>()
                })
            })
            .collect();
        hooks.insert(
            event.name().to_string(),
            serde_json::json!({"post": {
                "operationId": format!("on{id}"),
                "tags": ["webhooks"],
                // Parlour sends no credential: the receiver checks the signature.
                "security": [],
                "summary": format!("`{}`", event.name()),
                "description": format!("{when} Signed as Standard Webhooks say: verify `webhook-signature` over `{{webhook-id}}.{{webhook-timestamp}}.{{body}}` with the endpoint's secret."),
                "parameters": [
                    header("webhook-id", "The message's id: the same on every retry; dedup on it."),
                    header("webhook-timestamp", "When this attempt was made, in Unix seconds."),
                    header("webhook-signature", "`v1,<base64 HMAC-SHA256>`, space-separated when two secrets sign."),
                ],
                "requestBody": {"required": true, "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/WebhookPayload"}
                }}},
                "responses": {
                    "200": {"description": "Received: any 2xx within 15 s is success"},
                    "410": {"description": "Gone: the endpoint is disabled at once"}
                }
            }}),
        );
    }
    if let Some(root) = document.as_object_mut() {
        root.insert("webhooks".into(), Value::Object(hooks));
    }
    document
}

/// A seat plan is one of a few closed shapes (`deny_unknown_fields`: `{"kind": "me"}` takes no
/// other field), which utoipa does not say of an internally tagged enum's variants.
fn closed_seat_plans(mut document: Value) -> Value {
    for tagged in ["SeatPlan", "TimeControlPlan", "MatchTarget"] {
        let pointer = format!("/components/schemas/{tagged}/oneOf");
        if let Some(Value::Array(shapes)) = document.pointer_mut(&pointer) {
            for shape in shapes.iter_mut().filter_map(Value::as_object_mut) {
                shape.insert("additionalProperties".into(), Value::Bool(false));
            }
        }
    }
    document
}

/// A header or query parameter is either sent or left out: the wire has no `null` for it. utoipa
/// types an `Option` parameter as `["string", "null"]`, which tells a client (and a fuzzer) that
/// a null may be sent; leaving the parameter optional (`required: false`) is what `Option` means.
fn without_null_parameters(mut document: Value) -> Value {
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else {
        return document;
    };
    let parameters = paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut())
        .filter_map(|operation| operation.get_mut("parameters"))
        .filter_map(Value::as_array_mut)
        .flatten();
    for parameter in parameters {
        // An optional enum comes as `oneOf: [{"type": "null"}, the enum]`: the enum alone.
        if let Some(Value::Array(choices)) = parameter.pointer_mut("/schema/oneOf") {
            choices.retain(|choice| choice.get("type") != Some(&Value::from("null")));
            if let [only] = choices.as_slice() {
                let only = only.clone();
                if let Some(schema) = parameter.get_mut("schema") {
                    *schema = only;
                }
            }
            continue;
        }
        let Some(Value::Array(types)) = parameter.pointer_mut("/schema/type") else {
            continue;
        };
        types.retain(|kind| kind != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            if let Some(schema) = parameter.get_mut("schema").and_then(Value::as_object_mut) {
                schema.insert("type".into(), only);
            }
        }
    }
    document
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
are of in `game`, the discriminator.\n\n\
What changed in each version, and how a change that could break an app is announced (never \
within `/v1/`), is in `docs/changelog.md`.",
        version = "1.8.0",
        license(name = "MIT", identifier = "MIT")
    ),
    servers(
        (url = "/", description = "The server this document was read from"),
        (url = "http://127.0.0.1:8080", description = "A local server on the default address"),
    ),
    components(schemas(
        dto::Status, dto::NewPlayer, dto::NewGame, dto::CreatedSeat, dto::CreatedGame, dto::GameView,
        dto::GameEvent, dto::EventPage, dto::AuditFailure, dto::AuditReport, dto::CatalogEntry,
        dto::CatalogGame, dto::Catalog, dto::GameSchemas, dto::ViewSchemas, dto::ScorecardBody, dto::CreationRecord, dto::StoredGameEvent,
        dto::LogHead, dto::GameFile, dto::ProblemDetails, dto::SeatHeader, dto::YouHeader, dto::TableResult,
        dto::TableEventData, dto::NoteData, dto::SeatData, dto::AbandonedData, dto::HostedData,
        dto::ListedData,
        dto::SeatOfferedData, dto::SeatedData, dto::AbortedData, dto::ClockSetData, dto::VacationBeganData,
        dto::RemindedData, dto::TimedOutData, dto::BotSeatedData, dto::BotLevel, dto::SeatBot,
        dto::NewClock, dto::TimeControlPlan, dto::OnTimeout, dto::ClockView, dto::SeatClockView,
        dto::NewVacation, dto::VacationStatus, dto::SignInCode, dto::SignIn, receipts::Receipt, receipts::PublicKey, receipts::KeySet,
        receipts::Checkpoint, dto::ListedCheckpoint, dto::CheckpointPage,
        AnyAction, EventData,
        dto::NewAccount, dto::NewAccountToken, dto::Account, dto::AccountToken,
        dto::IssuedAccountToken, dto::CreatedAccount, dto::Me,
        dto::LoggedOffer, dto::SeatPlan, dto::NewHostedGame, dto::Invitation, dto::HostedSeat,
        dto::HostedGame, dto::AccountRef, dto::OpenTo, dto::SeatingView, dto::SeatingSeat,
        dto::SeatClaim, dto::SeatOffer, dto::Asked, dto::InboxGame, dto::InboxSeat, dto::InboxLast, dto::Inbox,
        dto::NoticeKind, dto::Notice, dto::NoticePage, dto::TimeoutTaken,
        dto::WebhookEventType, dto::NewWebhook, dto::WebhookChange, dto::Webhook,
        dto::WebhookWithSecret, dto::WebhookList, dto::DeliveryState, dto::DeliveryAttempt,
        dto::PushKey, dto::NewPushSubscription, dto::PushSubscriptionKeys, dto::PushSubscription,
        dto::PushSubscriptionList,
        dto::Delivery, dto::DeliveryPage, dto::WebhookPayload,
        dto::MatchTarget, dto::NewMatch, dto::CreatedMatchSeat, dto::CreatedMatch, dto::MatchCompetitor,
        dto::MatchDealRow, dto::MatchStatus, dto::MatchView, dto::MatchDealAudit, dto::MatchAudit, dto::MatchDealData,
        dto::TestClockAdvancedData,
    )),
    tags(
        (name = "catalog", description = "The games on offer and their cards"),
        (name = "games", description = "Playing, reading the log, auditing"),
        (name = "operations", description = "Health checks"),
        (name = "receipts", description = "The keys that sign move receipts and finished games' checkpoints, and the public list of checkpoints"),
        (name = "accounts", description = "Accounts and their named tokens"),
        (name = "tables", description = "Games hosted by accounts: seats, invitations, claims, aborts and resignations; the inbox"),
        (name = "bots", description = "Bots in seats: hand a seat to one, take it back (`docs/bots.md`)"),
        (name = "webhooks", description = "Signed messages (Standard Webhooks) telling an account's endpoints of its games"),
        (name = "push", description = "Web Push: an account's browsers told of its games while no page is open"),
        (name = "email", description = "Email: an account's addresses told of its games, and what it is told on which channel, and when"),
        (name = "matches", description = "Matches: deals of one game played to the sheet's target (`docs/matches.md`)"),
        (name = "apps", description = "Apps acting for players: OAuth 2.0 with PKCE, the consent page's calls, and the apps an account let in (`docs/integrators.md`)"),
    )
)]
pub struct ApiDoc;

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

/// The bearer schemes: seat tokens and account tokens.
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
        components.add_security_scheme(
            "account_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "An account token (it begins with `acct_`), handed out when the account \
                         was created or minted with `POST /v1/me/tokens`. A seat token is not \
                         one, nor is an account token a seat token.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "stream_ticket",
            SecurityScheme::ApiKey(ApiKey::Query(ApiKeyValue::with_description(
                "ticket",
                "A stream ticket (it begins with `stkt_`), from `POST /v1/games/{id}/stream/tickets` \
                 or `POST /v1/me/stream/tickets`: it opens its one stream once, within a minute, \
                 as the token that asked for it, for a browser's `EventSource`, which cannot send \
                 `Authorization`. Send it or `Authorization`, not both.",
            ))),
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
        (
            "RateLimit-Policy",
            "Each limit charged (draft-ietf-httpapi-ratelimit-headers-10): its name, quota and \
             the seconds it refills over, e.g. `\"token\";q=1200;w=60, \"client\";q=12000;w=60`",
        ),
        (
            "RateLimit",
            "How each limit stands: requests left now and seconds until one more is there, \
             e.g. `\"token\";r=1199;t=1, \"client\";r=11999;t=1`",
        ),
        (
            "RateLimit-Limit",
            "The tighter limit's quota (the draft's earlier field, kept for older clients)",
        ),
        (
            "RateLimit-Remaining",
            "Requests left under the tighter limit (the draft's earlier field)",
        ),
        (
            "RateLimit-Reset",
            "Seconds until the tighter limit is whole again (the draft's earlier field)",
        ),
    ] {
        response
            .headers
            .insert(name.into(), header(string(), description));
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
        captured_operations(openapi);
    }
}

/// A real request and answer of every operation that takes or answers JSON, kept by
/// `tests/api/operation_examples.rs` (which calls each operation and fails when one has
/// none): `{operationId: {request?, status, response}}`.
const OPERATIONS: &str = include_str!("../../openapi/examples/operations.json");

/// Gives each operation its captured request and answer, where it has no example of its own
/// from `EXAMPLES` (a game's own answers say more than a generic capture).
fn captured_operations(openapi: &mut utoipa::openapi::OpenApi) {
    let Ok(Value::Object(captured)) = serde_json::from_str::<Value>(OPERATIONS) else {
        return;
    };
    for (operation_id, example) in captured {
        let Some(operation) = operation_mut(openapi, &operation_id) else {
            continue;
        };
        if let Some(request) = example.get("request") {
            let body = operation
                .request_body
                .as_mut()
                .and_then(|body| body.content.get_mut("application/json"));
            if let Some(content) = body {
                content.example.get_or_insert_with(|| request.clone());
            }
        }
        let (Some(status), Some(response)) = (
            example.get("status").and_then(Value::as_str),
            example.get("response"),
        ) else {
            continue;
        };
        if let Some(RefOr::T(answer)) = operation.responses.responses.get_mut(status) {
            if let Some(content) = answer.content.get_mut("application/json") {
                content.example.get_or_insert_with(|| response.clone());
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

/// The links from a created account (and a minted token) to what its token opens, with the
/// secret from the answer, so a client (or a stateful fuzzer) gets past `401`.
fn account_links(secret: &str, id: &str) -> BTreeMap<String, OperationLink> {
    let token = format!("Bearer {{$response.body#{secret}}}");
    let mut links = BTreeMap::new();
    links.insert(
        "Me".to_string(),
        OperationLink {
            operation_id: "getMe",
            parameters: BTreeMap::from([("header.Authorization", token.clone())]),
            description: "The account, read with the token just given".to_string(),
        },
    );
    links.insert(
        "MintToken".to_string(),
        OperationLink {
            operation_id: "createAccountToken",
            parameters: BTreeMap::from([("header.Authorization", token.clone())]),
            description: "Another token for the account, minted with this one".to_string(),
        },
    );
    links.insert(
        "RevokeToken".to_string(),
        OperationLink {
            operation_id: "revokeAccountToken",
            parameters: BTreeMap::from([
                ("header.Authorization", token),
                ("path.token_id", format!("$response.body#{id}")),
            ]),
            description: "The token just given, revoking itself".to_string(),
        },
    );
    links
}

fn with_account_links(mut document: Value) -> Value {
    for (pointer, secret, id) in [
        (
            "/paths/~1v1~1accounts/post/responses/201",
            "/token/secret",
            "/token/id",
        ),
        (
            "/paths/~1v1~1me~1tokens/post/responses/201",
            "/secret",
            "/id",
        ),
    ] {
        let answer = document.pointer_mut(pointer);
        if let (Some(Value::Object(answer)), Ok(links)) =
            (answer, serde_json::to_value(account_links(secret, id)))
        {
            answer.insert("links".into(), links);
        }
    }
    document
}

/// The methods a route pattern (as actix matched it, `/v1/games/{id}`) answers, for `Allow`:
/// as the API document says, and `GET` for the few pages outside it (the docs page, the
/// problem pages, the document itself).
pub fn methods_at(pattern: &str) -> Vec<String> {
    static METHODS: OnceLock<HashMap<String, Vec<String>>> = OnceLock::new();
    let table = METHODS.get_or_init(|| {
        let document = spec();
        let Some(paths) = document.get("paths").and_then(|paths| paths.as_object()) else {
            return HashMap::new();
        };
        paths
            .iter()
            .map(|(path, item)| {
                let mut methods: Vec<String> = ["get", "post", "put", "patch", "delete"]
                    .into_iter()
                    .filter(|method| item.get(*method).is_some())
                    .map(str::to_uppercase)
                    .collect();
                // Every GET route answers HEAD too (`http::head`).
                if item.get("get").is_some() {
                    methods.insert(1, "HEAD".to_string());
                }
                (path.clone(), methods)
            })
            .collect()
    });
    match table.get(pattern) {
        Some(methods) => methods.clone(),
        // OAuth's token and revocation endpoints take a form, and nothing else.
        None if pattern.starts_with("/oauth/") => vec!["POST".to_string()],
        None => vec!["GET".to_string(), "HEAD".to_string()],
    }
}
