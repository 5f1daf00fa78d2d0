//! The OpenAPI document is a contract a generated client can rely on: every operation has its
//! own id, every error it can answer is a documented problem, every game's own types are in it
//! and reachable, its examples fit their schemas, and what the server really sends (games
//! played to the end over HTTP, every answer checked) fits the schema documented for it.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use jsonschema::{Draft, Validator};
use parlour::openapi::{
    event_data_component, logged_union, part_component, Part, Variant, TABLE_EVENTS,
};
use parlour_domain::clocks::{Moment, TimeControl, TimeoutPolicy};
use parlour_domain::table_events::{TableEvent, TableOutcome};
use parlour_domain::{catalog, Concession, Seat};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::client::seed_hex;
use crate::helpers::TestApp;
use crate::on_both_backends;

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// A game long enough to pass through every phase ends well within this.
const MAX_MOVES: usize = 5_000;

fn document() -> Value {
    parlour::openapi::spec()
}

/// Every operation: (path, method, operation).
fn operations(doc: &Value) -> Vec<(String, String, Value)> {
    let mut all = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in METHODS {
            if let Some(operation) = item.get(method) {
                all.push((path.clone(), method.to_string(), operation.clone()));
            }
        }
    }
    all
}

/// A JSON pointer token (RFC 6901).
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Compiles schemas of the document by JSON pointer, the document itself the root resource,
/// so every `#/components/...` reference resolves as a client's would.
struct Schemas {
    doc: Value,
    compiled: HashMap<String, Validator>,
}

impl Schemas {
    fn new(doc: Value) -> Schemas {
        Schemas {
            doc,
            compiled: HashMap::new(),
        }
    }

    fn validator(&mut self, pointer: &str) -> &Validator {
        if !self.compiled.contains_key(pointer) {
            assert!(
                self.doc.pointer(&pointer[1..]).is_some(),
                "the document has nothing at {pointer}"
            );
            let mut root = self.doc.clone();
            root["$ref"] = json!(uri_fragment(pointer));
            let validator = jsonschema::options()
                .with_draft(Draft::Draft202012)
                .build(&root)
                .unwrap_or_else(|e| panic!("{pointer} is not a JSON Schema: {e}"));
            self.compiled.insert(pointer.to_string(), validator);
        }
        &self.compiled[pointer]
    }

    fn check(&mut self, pointer: &str, what: &str, value: &Value) {
        let errors: Vec<String> = self
            .validator(pointer)
            .iter_errors(value)
            .take(5)
            .map(|e| format!("{e} at {}", e.instance_path))
            .collect();
        assert!(
            errors.is_empty(),
            "{what} does not fit {pointer}: {errors:?}\n{}",
            truncated(value)
        );
    }

    /// The pointer to the schema an operation documents for `status` (or its `4XX`/`5XX`
    /// default) and `media`.
    fn response_schema(&self, operation_id: &str, status: u16, media: &str) -> String {
        let (path, method, operation) = operations(&self.doc)
            .into_iter()
            .find(|(_, _, op)| op["operationId"] == json!(operation_id))
            .unwrap_or_else(|| panic!("no operation {operation_id}"));
        let responses = &operation["responses"];
        let code = status.to_string();
        let range = format!("{}XX", status / 100);
        let key = if responses.get(&code).is_some() {
            code
        } else {
            assert!(
                responses.get(&range).is_some(),
                "{operation_id} does not document {status}"
            );
            range
        };
        assert!(
            responses[&key]["content"].get(media).is_some(),
            "{operation_id} documents no {media} for {key}"
        );
        format!(
            "#/paths/{}/{method}/responses/{key}/content/{}/schema",
            escape(&path),
            escape(media)
        )
    }

    /// Checks a real answer against what its operation documents for its status.
    async fn answer(&mut self, operation_id: &str, res: reqwest::Response) -> (StatusCode, Value) {
        let status = res.status();
        let media = res
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        let body: Value = res.json().await.unwrap_or(Value::Null);
        let pointer = self.response_schema(operation_id, status.as_u16(), &media);
        self.check(
            &pointer,
            &format!("{operation_id}'s {status} answer"),
            &body,
        );
        (status, body)
    }
}

/// A `#/json/pointer` as a URI fragment: the characters a URI may not hold percent-encoded.
fn uri_fragment(pointer: &str) -> String {
    let mut fragment = String::with_capacity(pointer.len());
    for c in pointer.chars() {
        match c {
            '%' | '{' | '}' | ' ' | '"' | '<' | '>' | '^' | '|' | '`' | '\\' => {
                fragment.push_str(&format!("%{:02X}", c as u32));
            }
            c => fragment.push(c),
        }
    }
    fragment
}

fn truncated(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(2_000) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

/// Every `$ref` in `value`, but none inside an example's value: an example is an answer, and a
/// schema the server answers with (`getCatalogGameSchemas`) refers within itself.
fn refs(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("$ref", Value::String(target)) => found.push(target.clone()),
                    ("example", _) => {}
                    ("examples", Value::Object(examples)) => {
                        for example in examples.values() {
                            if let Some(Value::String(target)) = example.get("$ref") {
                                found.push(target.clone());
                            }
                        }
                    }
                    _ => refs(value, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| refs(item, found)),
        _ => {}
    }
}

/// The components reachable from the paths, following references.
fn reachable_components(doc: &Value) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut pending = Vec::new();
    refs(&doc["paths"], &mut pending);
    // The messages sent to registered endpoints (OpenAPI 3.1 `webhooks`).
    refs(&doc["webhooks"], &mut pending);
    while let Some(target) = pending.pop() {
        // An error answer's example (`every_error_answer_has_an_example_…` checks those).
        if let Some(example) = target.strip_prefix("#/components/examples/") {
            assert!(
                doc["components"]["examples"].get(example).is_some(),
                "{target} points at nothing"
            );
            continue;
        }
        let name = target
            .strip_prefix("#/components/schemas/")
            .unwrap_or_else(|| panic!("a reference outside the schemas: {target}"))
            .to_string();
        if seen.insert(name.clone()) {
            let schema = doc["components"]["schemas"]
                .get(&name)
                .unwrap_or_else(|| panic!("{target} points at nothing"));
            refs(schema, &mut pending);
        }
    }
    seen
}

fn games() -> Vec<parlour_domain::Description> {
    catalog::engines()
        .into_iter()
        .map(|engine| engine.describe())
        .collect()
}

#[test]
fn every_operation_has_its_own_id() {
    let doc = document();
    let mut ids = BTreeMap::new();
    for (path, method, operation) in operations(&doc) {
        let id = operation["operationId"]
            .as_str()
            .unwrap_or_else(|| panic!("{method} {path} has no operationId"))
            .to_string();
        if let Some(other) = ids.insert(id.clone(), format!("{method} {path}")) {
            panic!("{method} {path} and {other} share the operationId {id}");
        }
    }
    // 17, the four of accounts (createAccount, getMe, createAccountToken,
    // revokeAccountToken), and the nine of hosted tables (hostGame, getMyGames, claimSeat,
    // offerSeat, withdrawSeatOffer, abortGame, resign, streamMyNotices, getMyNotices), and the
    // three of vacation (getMyVacation, beginVacation, endVacation), and the two of signing in
    // on a second device (createSignInCode, signIn), and the nine of webhooks (createWebhook,
    // listWebhooks, getWebhook, updateWebhook, deleteWebhook, rotateWebhookSecret,
    // testWebhook, listWebhookDeliveries, retryWebhookDelivery), and the two of bots
    // (handSeatToBot, takeSeatBack), and the three of matches (createMatch, getMatch,
    // getMatchAudit), and the public list of checkpoints (listCheckpoints), and the four of
    // Web Push (getPushKey, createPushSubscription, listPushSubscriptions,
    // deletePushSubscription), and the ten of email (createEmailAddress, listEmailAddresses,
    // updateEmailAddress, deleteEmailAddress, getNoticePreferences, setNoticePreferences,
    // showEmailVerification, verifyEmailAddress, showEmailUnsubscribe,
    // unsubscribeEmailAddress), and the six of passkeys (beginPasskeyRegistration,
    // createPasskey, listPasskeys, deletePasskey, beginPasskeySignIn, signInWithPasskey), and
    // the sign-in link by email (requestEmailSignIn).
    assert_eq!(ids.len(), 80, "{ids:?}");
}

// A reader scanning the document (or a generated client's method list) sees a short title;
// what the call does, and when to use it, is in its description.
#[test]
fn every_operation_has_a_short_title_and_a_description() {
    let doc = document();
    for (path, method, operation) in operations(&doc) {
        let summary = operation["summary"].as_str().unwrap_or_default();
        assert!(
            !summary.is_empty() && summary.len() <= 40 && !summary.contains('\n'),
            "{method} {path}: the summary {summary:?} is not a one-line title"
        );
        assert!(
            !summary.ends_with('.'),
            "{method} {path}: the title {summary:?} is a title, not a sentence"
        );
        let description = operation["description"].as_str().unwrap_or_default();
        assert!(
            description.len() > summary.len() && description.ends_with('.'),
            "{method} {path} has no description (or one that stops mid-sentence)"
        );
    }
}

// docs/changelog.md is where an app learns what changed: it is kept with the document.
#[test]
fn the_changelog_names_the_documents_version_and_every_operation() {
    let changelog = include_str!("../../docs/changelog.md");
    let doc = document();
    let newest = changelog
        .lines()
        .find_map(|line| {
            line.strip_prefix("## ")
                .filter(|h| h.starts_with(char::is_numeric))
        })
        .and_then(|heading| heading.split_whitespace().next())
        .expect("a version heading");
    assert_eq!(doc["info"]["version"].as_str(), Some(newest));
    for (path, method, operation) in operations(&doc) {
        let id = operation["operationId"].as_str().unwrap_or_default();
        assert!(
            changelog.contains(&format!("`{id}`")),
            "{method} {path} ({id}) is in no entry of docs/changelog.md"
        );
        // The changelog says nothing is deprecated; an operation that is must have its entry.
        assert!(
            operation.get("deprecated").is_none_or(|d| d == false),
            "{id} is deprecated: docs/changelog.md must say so, with its sunset"
        );
    }
}

#[test]
fn an_optional_parameter_is_left_out_never_sent_as_null() {
    let doc = document();
    let mut optional = 0;
    for (path, method, operation) in operations(&doc) {
        for parameter in operation["parameters"].as_array().into_iter().flatten() {
            let name = &parameter["name"];
            assert!(
                !parameter["schema"].to_string().contains("\"null\""),
                "{method} {path}: parameter {name} admits null: {}",
                parameter["schema"]
            );
            if parameter["required"] != json!(true) {
                optional += 1;
            }
        }
    }
    // wait, If-None-Match, If-Match, Idempotency-Key, after, limit, at, ...: still optional.
    assert!(optional >= 6, "only {optional} optional parameters");
}

#[test]
fn every_error_an_operation_can_answer_is_a_documented_problem() {
    let doc = document();
    let problem = json!({"$ref": "#/components/schemas/Problem"});
    for (path, method, operation) in operations(&doc) {
        let here = format!("{method} {path}");
        let responses = operation["responses"].as_object().expect("responses");
        for default in ["4XX", "5XX"] {
            assert!(responses.contains_key(default), "{here} has no {default}");
        }
        for (status, response) in responses {
            assert!(
                response["headers"].get("x-request-id").is_some(),
                "{here} {status} does not document x-request-id"
            );
            if !(status.starts_with('4') || status.starts_with('5')) {
                continue;
            }
            let content = response["content"].as_object().expect("content");
            assert_eq!(
                content.keys().collect::<Vec<_>>(),
                ["application/problem+json"],
                "{here} {status}"
            );
            assert_eq!(
                content["application/problem+json"]["schema"], problem,
                "{here} {status}"
            );
        }
        let must = |status: &str, why: &str| {
            assert!(
                responses.contains_key(status),
                "{here} lacks {status}: {why}"
            );
        };
        if path.starts_with("/v1/") {
            must("429", "every /v1 operation is rate limited");
            for name in [
                "Retry-After",
                "RateLimit-Limit",
                "RateLimit-Remaining",
                "RateLimit-Reset",
            ] {
                assert!(
                    responses["429"]["headers"].get(name).is_some(),
                    "{here}'s 429 does not document {name}"
                );
            }
        }
        if operation.get("requestBody").is_some() {
            must("413", "it takes a body");
            must("415", "it takes a JSON body");
        }
        if path.starts_with("/v1/games/") || path.starts_with("/v1/statistics/") {
            must("404", "it names a game");
            must("503", "it reads the database");
            assert!(
                responses["503"]["headers"].get("Retry-After").is_some(),
                "{here}'s 503 does not say when to retry"
            );
        }
        let takes_token = operation["security"]
            .as_array()
            .expect("explicit security")
            .iter()
            .any(|requirement| requirement.get("seat_token").is_some());
        if takes_token {
            must("401", "it takes a seat token");
            must("403", "a token may be another game's");
        }
        let takes_account = operation["security"]
            .as_array()
            .expect("explicit security")
            .iter()
            .any(|requirement| requirement.get("account_token").is_some());
        if takes_account {
            must("401", "it takes an account token");
            must("503", "it reads the database");
        }
    }
    let act = &doc["paths"]["/v1/games/{id}/actions"]["post"]["responses"];
    for status in ["409", "412", "422", "428"] {
        assert!(act.get(status).is_some(), "postAction lacks {status}");
    }
    assert!(act["409"]["description"]
        .as_str()
        .is_some_and(|d| d.contains("in flight")));
    assert!(act["200"]["headers"].get("Idempotent-Replayed").is_some());
    let create = &doc["paths"]["/v1/games"]["post"]["responses"]["201"]["headers"];
    for name in ["Location", "ETag"] {
        assert!(create.get(name).is_some(), "createGame's 201 lacks {name}");
    }
    for path in ["/v1/games/{id}", "/v1/games/{id}/state"] {
        let headers = &doc["paths"][path]["get"]["responses"]["200"]["headers"];
        for name in ["ETag", "Vary", "Cache-Control"] {
            assert!(headers.get(name).is_some(), "GET {path}'s 200 lacks {name}");
        }
    }
    let events = &doc["paths"]["/v1/games/{id}/events"]["get"]["responses"]["200"]["headers"];
    assert!(events.get("Link").is_some());
    assert!(!doc["servers"].as_array().expect("servers").is_empty());
}

#[test]
fn every_game_type_is_in_the_document_and_reachable_from_an_operation() {
    let doc = document();
    let components = doc["components"]["schemas"].as_object().expect("schemas");
    let reachable = reachable_components(&doc);
    let unreached: Vec<&String> = components
        .keys()
        .filter(|name| !reachable.contains(*name))
        .collect();
    assert!(unreached.is_empty(), "unreachable: {unreached:?}");
    for game in games() {
        let mut expected: Vec<String> = Part::ALL
            .into_iter()
            // Events are published per type (`GirlEventDataLay`, `GirlLayEvent`, ...).
            .filter(|part| !matches!(part, Part::Event | Part::SeenEvent))
            .map(|part| part_component(game.id, part))
            .collect();
        expected.push(event_data_component(game.id));
        expected.push(logged_union(game.id));
        expected.extend(Variant::ALL.map(|variant| variant.component(game.id)));
        for name in expected {
            assert!(reachable.contains(&name), "{name} is not reachable");
        }
        // The links from a created game name seat 0 (and seat 1, where there is one).
        assert!(game.min_players >= 1, "{} can have no seat", game.id);
    }
    // Each union of per-game variants is told apart by `game`, and each variant pins it.
    for variant in Variant::ALL {
        let union = &components[variant.union()];
        assert_eq!(union["discriminator"]["propertyName"], json!("game"));
        let mapping = union["discriminator"]["mapping"]
            .as_object()
            .expect("a mapping");
        for game in games() {
            let name = variant.component(game.id);
            assert_eq!(
                mapping[game.id],
                json!(format!("#/components/schemas/{name}"))
            );
            assert_eq!(
                components[&name]["properties"]["game"]["enum"],
                json!([game.id])
            );
        }
    }
    // A GIRL view's parts are GIRL's own types, not any object.
    let girl = &components[&Variant::View.component("girl")]["properties"];
    assert_eq!(
        girl["public"]["$ref"],
        json!("#/components/schemas/GirlPublicView")
    );
    assert_eq!(
        girl["legal_actions"]["items"]["$ref"],
        json!("#/components/schemas/GirlLegalAction")
    );
}

#[test]
fn every_reference_resolves_and_every_link_names_a_real_operation() {
    let doc = document();
    let mut found = Vec::new();
    refs(&doc, &mut found);
    for target in found {
        assert!(
            doc.pointer(&target[1..]).is_some(),
            "{target} points at nothing"
        );
    }
    let operations = operations(&doc);
    let links = doc["paths"]["/v1/games"]["post"]["responses"]["201"]["links"]
        .as_object()
        .expect("links from createGame");
    for name in ["ViewAsSeat0", "MoveAsSeat0", "ViewAsSeat1", "MoveAsSeat1"] {
        assert!(links.contains_key(name), "no link {name}");
    }
    for (name, link) in links {
        let (_, _, target) = operations
            .iter()
            .find(|(_, _, op)| op["operationId"] == link["operationId"])
            .unwrap_or_else(|| panic!("link {name} names no operation"));
        for (parameter, _) in link["parameters"].as_object().expect("parameters") {
            let (place, parameter) = parameter.split_once('.').expect("place.name");
            let declared = target["parameters"].as_array().is_some_and(|ps| {
                ps.iter()
                    .any(|p| p["in"] == json!(place) && p["name"] == json!(parameter))
            });
            assert!(
                declared || (place, parameter) == ("header", "Authorization"),
                "link {name} sets {place} {parameter}, which its target does not take"
            );
        }
    }
}

/// Every `example` in the document, with the pointer to the schema it illustrates.
fn examples(value: &Value, pointer: &str, found: &mut Vec<(String, Value)>) {
    let Value::Object(map) = value else {
        if let Value::Array(items) = value {
            for (i, item) in items.iter().enumerate() {
                examples(item, &format!("{pointer}/{i}"), found);
            }
        }
        return;
    };
    // A media type's example illustrates its schema; a schema's, the schema itself.
    if let Some(example) = map.get("example") {
        if map.contains_key("schema") {
            found.push((format!("{pointer}/schema"), example.clone()));
        } else if !pointer.contains("/x-") {
            found.push((pointer.to_string(), example.clone()));
        }
    }
    for (key, value) in map {
        if key != "example" {
            examples(value, &format!("{pointer}/{}", escape(key)), found);
        }
    }
}

#[test]
fn every_example_fits_its_schema() {
    let doc = document();
    let mut found = Vec::new();
    examples(&doc, "#", &mut found);
    let mut schemas = Schemas::new(doc);
    let media_examples = found
        .iter()
        .filter(|(pointer, _)| pointer.starts_with("#/paths/") && pointer.ends_with("/schema"))
        .count();
    // The captured answers and bodies of openapi/examples/, and the stream's.
    assert!(media_examples >= 9, "{media_examples} examples of bodies");
    for (pointer, example) in found {
        if pointer.contains("text~1event-stream") {
            assert!(example.is_string());
            continue;
        }
        schemas.check(&pointer, "the example", &example);
    }
}

/// Every error answer in the document shows what it looks like: at least one example, each
/// the answer of a problem of the response's own status, and every problem has one, a real
/// answer of the server (`openapi/examples/problems.json`, kept by
/// `problem_examples::every_problem_example_in_the_document_is_an_answer_the_server_gave`)
/// that fits the problem schema.
#[test]
fn every_error_answer_has_an_example_of_each_problem_it_can_carry() {
    use parlour::error::Problem;
    use parlour::openapi::problem_examples::{component, fits};
    let doc = document();
    let mut schemas = Schemas::new(doc.clone());
    let components = doc["components"]["examples"]
        .as_object()
        .expect("the document's examples")
        .clone();
    let referred = doc["paths"].to_string();
    for problem in Problem::ALL {
        let name = component(*problem);
        // Published only when a response refers to it (validators refuse unused components).
        let Some(example) = components.get(&name) else {
            assert!(!referred.contains(&format!("\"#/components/examples/{name}\"")));
            continue;
        };
        let answer = &example["value"];
        assert_eq!(answer["type"], format!("/problems/{}", problem.code()));
        assert_eq!(answer["status"], problem.status().as_u16());
        assert_eq!(answer["title"], problem.title());
        schemas.check("#/components/schemas/Problem", &name, answer);
    }
    for name in components.keys() {
        assert!(
            referred.contains(&format!("\"#/components/examples/{name}\"")),
            "{name} is referred to by no response"
        );
    }
    let mut responses = 0;
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("a path item") {
            let Some(answers) = operation.get("responses").and_then(Value::as_object) else {
                continue;
            };
            for (status, response) in answers {
                if !(status.starts_with('4') || status.starts_with('5')) {
                    continue;
                }
                responses += 1;
                let place = format!("{method} {path} {status}");
                let examples = response["content"]["application/problem+json"]["examples"]
                    .as_object()
                    .unwrap_or_else(|| panic!("{place} has no example"));
                assert!(!examples.is_empty(), "{place} has no example");
                for (code, example) in examples {
                    let answer = match example.get("$ref").and_then(Value::as_str) {
                        Some(to) => {
                            let name = to.strip_prefix("#/components/examples/").unwrap();
                            &components[name]["value"]
                        }
                        None => &example["value"],
                    };
                    let problem = Problem::from_code(code)
                        .unwrap_or_else(|| panic!("{place}: {code} is no problem"));
                    assert!(fits(problem, status), "{place} cannot answer {code}");
                    assert_eq!(answer["type"], format!("/problems/{code}"), "{place}");
                    schemas.check("#/components/schemas/Problem", &place, answer);
                }
            }
        }
    }
    assert!(responses > 500, "only {responses} error responses");
}

/// The integrators' table of errors names every problem, each in the row of its status.
#[test]
fn the_integrators_table_of_errors_names_every_problem_under_its_status() {
    use parlour::error::Problem;
    let guide = include_str!("../../docs/integrators.md");
    let section = guide
        .split("## Errors")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("the Errors section");
    for problem in Problem::ALL {
        let code = format!("`{}`", problem.code());
        let status = problem.status().as_u16().to_string();
        let row = section
            .lines()
            .find(|line| line.starts_with("| ") && line.contains(&code))
            .unwrap_or_else(|| panic!("the table of errors does not name {code}"));
        let statuses = row.split('|').nth(1).unwrap_or_default();
        assert!(
            statuses.contains(&status),
            "{code} is in the row of {statuses}, not {status}"
        );
    }
}

/// Every operation that answers JSON shows a real answer, and every one that takes a JSON body
/// a real request (`openapi/examples/operations.json`, kept by
/// `operation_examples::every_operation_s_example_in_the_document_is_an_answer_the_server_gave`);
/// `every_example_fits_its_schema` holds each to its schema.
#[test]
fn every_operation_shows_a_real_request_and_answer() {
    let doc = document();
    let mut missing = Vec::new();
    for (path, method, operation) in operations(&doc) {
        let place = format!("{method} {path}");
        let answers = operation["responses"].as_object().expect("responses");
        let json_answers: Vec<&Value> = answers
            .iter()
            .filter(|(status, _)| status.starts_with('2'))
            .filter_map(|(_, answer)| answer.pointer("/content/application~1json"))
            .collect();
        if !json_answers.is_empty() && !json_answers.iter().any(|c| c.get("example").is_some()) {
            missing.push(format!("{place}: no answer"));
        }
        if let Some(body) = operation.pointer("/requestBody/content/application~1json") {
            if body.get("example").is_none() {
                missing.push(format!("{place}: no request"));
            }
        }
    }
    assert!(missing.is_empty(), "without a real example: {missing:#?}");
}

#[test]
fn the_readme_bodies_are_valid_against_the_document() {
    let readme = include_str!("../../README.md");
    let bodies: Vec<Value> = readme
        .split('\'')
        .filter_map(|quoted| serde_json::from_str::<Value>(quoted).ok())
        .filter(Value::is_object)
        .collect();
    let mut schemas = Schemas::new(document());
    let (mut creates, mut moves) = (0, 0);
    for body in bodies {
        if body.get("players").is_some() {
            schemas.check(
                "#/components/schemas/NewGame",
                "the README's create body",
                &body,
            );
            creates += 1;
        } else if body.get("type").is_some() {
            schemas.check("#/components/schemas/GirlAction", "a README move", &body);
            moves += 1;
        }
    }
    assert!(creates >= 1, "the README creates no game");
    assert!(moves >= 1, "the README makes no move");
}

#[test]
fn the_table_types_are_what_the_domain_writes() {
    let mut schemas = Schemas::new(document());
    let concession = || Some(Concession::by_points(Seat(1), vec![4, 1], "points"));
    for outcome in [
        TableOutcome::Resignation {
            seat: Seat(1),
            concession: concession(),
        },
        TableOutcome::Forfeit {
            seat: Seat(1),
            concession: concession(),
        },
        TableOutcome::Abort,
        TableOutcome::Abandonment {
            reason: "rain".into(),
        },
    ] {
        let value = serde_json::to_value(&outcome).expect("json");
        schemas.check(
            "#/components/schemas/TableResult",
            "a table outcome",
            &value,
        );
    }
    for event in every_table_event() {
        let recorded = event.to_recorded();
        let (_, data) = TABLE_EVENTS
            .iter()
            .find(|(kind, _)| *kind == recorded.kind)
            .expect("every table event is listed");
        schemas.check(
            &format!("#/components/schemas/{data}"),
            "a table event's data, as its tagged variant names it",
            &recorded.data,
        );
    }
    for event in [
        TableEvent::Note { text: "gg".into() },
        TableEvent::Resigned { seat: Seat(0) },
        TableEvent::Abandoned {
            reason: "rain".into(),
        },
        TableEvent::ClockSet {
            control: TimeControl::Bank {
                initial_hours: 24,
                increment_hours: 2,
                max_hours: 48,
            },
            on_timeout: TimeoutPolicy::DefaultMove,
            vacation: false,
            empty_bank_hours: Some(1),
        },
        TableEvent::ClockSet {
            control: TimeControl::Correspondence { days: 3 },
            on_timeout: TimeoutPolicy::Forfeit,
            vacation: true,
            empty_bank_hours: None,
        },
        TableEvent::Reminded {
            seat: Seat(1),
            due: Moment(1_800_000_000_000_000),
        },
        TableEvent::TimedOut {
            seat: Seat(1),
            deadline: Moment(1_800_000_000_000_000),
        },
        TableEvent::VacationBegan {
            seat: Seat(0),
            until: Moment(1_800_000_000_000_000),
        },
        TableEvent::VacationEnded { seat: Seat(0) },
    ] {
        let recorded = event.to_recorded();
        schemas.check(
            "#/components/schemas/EventData",
            "a table event's data",
            &recorded.data,
        );
    }
}

/// The lists whose length is bounded where they are kept, so a page of them would never end:
/// each with its bound.
const BOUNDED_LISTS: [(&str, &str); 5] = [
    ("listCatalog", "the catalogue's five games"),
    ("listWebhooks", "MAX_WEBHOOKS_PER_ACCOUNT (20)"),
    ("listEmailAddresses", "MAX_EMAIL_ADDRESSES_PER_ACCOUNT (5)"),
    (
        "listPushSubscriptions",
        "MAX_PUSH_SUBSCRIPTIONS_PER_ACCOUNT (20)",
    ),
    ("listPasskeys", "MAX_PASSKEYS_PER_ACCOUNT (20)"),
];

/// The component an operation's `200` answers with, through a `$ref`.
fn answer_component(operation: &Value) -> Option<String> {
    operation
        .pointer("/responses/200/content/application~1json/schema/$ref")
        .and_then(Value::as_str)
        .map(|target| {
            target
                .trim_start_matches("#/components/schemas/")
                .to_string()
        })
}

#[test]
fn every_list_that_grows_is_paged_the_same_way() {
    let doc = document();
    let components = &doc["components"]["schemas"];
    let mut paged = Vec::new();
    for (path, method, operation) in operations(&doc) {
        let id = operation["operationId"]
            .as_str()
            .expect("an id")
            .to_string();
        let Some(answer) = answer_component(&operation) else {
            continue;
        };
        let is_list = id.starts_with("list")
            || answer.ends_with("Page")
            || answer.ends_with("List")
            || answer == "Inbox";
        if method != "get" || !is_list || BOUNDED_LISTS.iter().any(|(name, _)| *name == id) {
            continue;
        }
        // The request: `cursor` (a string) and `limit` (a bounded whole number).
        let parameters = operation["parameters"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let query = |name: &str| {
            parameters
                .iter()
                .find(|p| p["name"] == json!(name) && p["in"] == json!("query"))
                .unwrap_or_else(|| panic!("{id} ({path}) takes no `{name}`"))
                .clone()
        };
        let cursor = query("cursor");
        assert!(
            cursor.pointer("/schema/type").is_some_and(
                |t| t == "string" || t.as_array().is_some_and(|t| t.contains(&json!("string")))
            ),
            "{id}: `cursor` is a string: {cursor}"
        );
        let limit = query("limit");
        assert_eq!(
            limit.pointer("/schema/minimum"),
            Some(&json!(1)),
            "{id}: {limit}"
        );
        assert!(limit.pointer("/schema/maximum").is_some(), "{id}: {limit}");
        // The answer: `next` on every page (a union's every page), and the `Link` header.
        let pages: Vec<&Value> = match components[&answer].get("oneOf") {
            Some(Value::Array(alternatives)) => alternatives
                .iter()
                .map(|alternative| {
                    let name = alternative["$ref"]
                        .as_str()
                        .expect("a page")
                        .trim_start_matches("#/components/schemas/");
                    &components[name]
                })
                .collect(),
            _ => vec![&components[&answer]],
        };
        for page in pages {
            let next = &page["properties"]["next"];
            let types = next["type"]
                .as_array()
                .cloned()
                .unwrap_or_else(|| vec![next["type"].clone()]);
            assert!(
                types.contains(&json!("string")),
                "{id}: `next` is a string: {next}"
            );
            assert!(
                page["required"]
                    .as_array()
                    .is_some_and(|r| r.contains(&json!("next"))),
                "{id}: every page says `next`, null on the last"
            );
        }
        let link = operation
            .pointer("/responses/200/headers/Link/description")
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("{id} documents no Link header"));
        assert!(
            link.contains("cursor=") && link.contains("rel=\"next\""),
            "{id}: {link}"
        );
        paged.push(id);
    }
    paged.sort();
    assert_eq!(
        paged,
        [
            "getMyGames",
            "getMyNotices",
            "listApps",
            "listCheckpoints",
            "listGameEvents",
            "listOpenTables",
            "listWebhookDeliveries"
        ]
    );
}

/// One table event of each kind. The match fails to compile when the domain gains a kind, so
/// that it is added here, to `TABLE_EVENTS` and to the document.
fn every_table_event() -> Vec<TableEvent> {
    let seat = Seat(1);
    let at = Moment(1_800_000_000_000_000);
    let all = vec![
        TableEvent::Note { text: "gg".into() },
        TableEvent::Resigned { seat },
        TableEvent::Abandoned {
            reason: "rain".into(),
        },
        TableEvent::Hosted {
            account: "0190d3c2-7c5e-7b4e-9a4e-3c1f2b3a4d5e".into(),
            name: "Ann".into(),
        },
        TableEvent::SeatOffered {
            seat,
            to: parlour_domain::table_events::Offer::Anyone {},
        },
        TableEvent::OfferWithdrawn { seat },
        TableEvent::Seated {
            seat,
            account: "0190d3c2-7c5e-7b4e-9a4e-3c1f2b3a4d5f".into(),
            name: "Bea".into(),
        },
        TableEvent::Aborted {},
        TableEvent::ClockSet {
            control: TimeControl::Correspondence { days: 3 },
            on_timeout: TimeoutPolicy::Forfeit,
            vacation: true,
            empty_bank_hours: None,
        },
        TableEvent::Reminded { seat, due: at },
        TableEvent::TimedOut { seat, deadline: at },
        TableEvent::VacationBegan { seat, until: at },
        TableEvent::VacationEnded { seat },
        TableEvent::BotSeated {
            seat,
            level: parlour_domain::bots::Level::Steady,
        },
        TableEvent::BotLeft { seat },
        TableEvent::MatchDeal {
            match_id: "0190d3c2-7c5e-7b4e-9a4e-3c1f2b3a4d60".into(),
            deal: 0,
        },
        TableEvent::TestClock {},
        TableEvent::TestClockAdvanced { seconds: 3600 },
        TableEvent::Listed { until: at },
    ];
    for event in &all {
        match event {
            TableEvent::Note { .. }
            | TableEvent::Resigned { .. }
            | TableEvent::Abandoned { .. }
            | TableEvent::Hosted { .. }
            | TableEvent::Listed { .. }
            | TableEvent::SeatOffered { .. }
            | TableEvent::OfferWithdrawn { .. }
            | TableEvent::Seated { .. }
            | TableEvent::Aborted {}
            | TableEvent::ClockSet { .. }
            | TableEvent::Reminded { .. }
            | TableEvent::TimedOut { .. }
            | TableEvent::VacationBegan { .. }
            | TableEvent::VacationEnded { .. }
            | TableEvent::BotSeated { .. }
            | TableEvent::BotLeft { .. }
            | TableEvent::MatchDeal { .. }
            | TableEvent::TestClock {}
            | TableEvent::TestClockAdvanced { .. } => {}
        }
    }
    all
}

#[test]
fn in_every_games_log_the_type_of_an_entry_names_the_shape_of_its_data() {
    let doc = document();
    let components = &doc["components"]["schemas"];
    let kinds: BTreeSet<String> = every_table_event().iter().map(TableEvent::kind).collect();
    let listed: BTreeSet<String> = TABLE_EVENTS.iter().map(|(k, _)| k.to_string()).collect();
    assert_eq!(kinds, listed, "TABLE_EVENTS lists every table event");
    for engine in catalog::engines() {
        let game = engine.describe().id;
        let union = &components[logged_union(game)];
        assert_eq!(union["discriminator"]["propertyName"], json!("type"));
        let mapping = union["discriminator"]["mapping"]
            .as_object()
            .expect("a mapping");
        let published = engine.schemas();
        let tags: Vec<String> = published.event["oneOf"]
            .as_array()
            .or_else(|| published.event["anyOf"].as_array())
            .expect("a tagged union of events")
            .iter()
            .map(|variant| {
                let tag = &variant["properties"]["type"];
                tag.get("const")
                    .or_else(|| tag.pointer("/enum/0"))
                    .and_then(Value::as_str)
                    .expect("a tag")
                    .to_string()
            })
            .collect();
        let seen: Vec<String> = published.seen_event["oneOf"]
            .as_array()
            .or_else(|| published.seen_event["anyOf"].as_array())
            .into_iter()
            .flatten()
            .map(|variant| {
                variant["properties"]["type"]["const"].as_str().map_or_else(
                    || {
                        variant["properties"]["type"]["enum"][0]
                            .as_str()
                            .unwrap_or_default()
                            .to_string()
                    },
                    str::to_string,
                )
            })
            .collect();
        assert_eq!(
            mapping.len(),
            tags.len() + kinds.len(),
            "{game}: one variant per type"
        );
        for tag in tags.iter().chain(&kinds) {
            let target = mapping[tag.as_str()].as_str().expect("a reference");
            let variant = doc
                .pointer(target.trim_start_matches('#'))
                .unwrap_or_else(|| panic!("{target} is missing"));
            // The variant pins its type, so the type narrows the data.
            assert_eq!(
                variant["properties"]["type"]["enum"],
                json!([tag]),
                "{target}"
            );
            assert!(variant["required"]
                .as_array()
                .unwrap()
                .contains(&json!("data")));
            let data = &variant["properties"]["data"];
            if seen.contains(tag) {
                assert_eq!(data["anyOf"].as_array().map(Vec::len), Some(2), "{target}");
            } else {
                assert!(data.get("$ref").is_some(), "{target}: {data}");
            }
        }
        // A page of the game's log holds only its own entries, told apart by `game`.
        let page = &components[parlour::openapi::event_page(game)];
        assert_eq!(page["properties"]["game"]["enum"], json!([game]));
        assert_eq!(
            page["properties"]["events"]["items"]["$ref"],
            json!(format!("#/components/schemas/{}", logged_union(game)))
        );
    }
    assert_eq!(
        components["EventPage"]["discriminator"]["propertyName"],
        json!("game")
    );
}

/// Plays one game to the end with random legal moves, checking every answer against the
/// document: views of every seat and a spectator, each move's answer, the log while the game
/// is in progress and after, the state at a point, the audit, the file and the documents.
async fn play_checked(app: &TestApp, schemas: &mut Schemas, game: &str, players: usize, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let names: Vec<Value> = (0..players)
        .map(|i| json!({"name": format!("Player {i}")}))
        .collect();
    let body = json!({"game": game, "players": names, "seed": seed_hex(seed)});
    let res = app
        .request(Method::POST, "/v1/games", None, Some(&body))
        .await;
    let (status, created) = schemas.answer("createGame", res).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().expect("id").to_string();
    let tokens: Vec<String> = created["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["token"].as_str().expect("token").to_string())
        .collect();
    let view_path = format!("/v1/games/{id}");
    let mut moves = 0;
    loop {
        let res = app.request(Method::GET, &view_path, None, None).await;
        let (_, public) = schemas.answer("getGame", res).await;
        if public["status"] == json!("finished") {
            break;
        }
        let to_act = public["to_act"].as_array().expect("to_act");
        let seat = to_act[(rng.next_u64() % to_act.len() as u64) as usize]
            .as_u64()
            .expect("seat") as usize;
        let res = app
            .request(Method::GET, &view_path, Some(&tokens[seat]), None)
            .await;
        let (_, mine) = schemas.answer("getGame", res).await;
        let offered = mine["legal_actions"].as_array().expect("legal_actions");
        let template = &offered[(rng.next_u64() % offered.len() as u64) as usize];
        let action = parlour_domain::playout::instantiate(template, &mut rng);
        schemas.check("#/components/schemas/Action", "a move made", &action);
        let res = app
            .request(
                Method::POST,
                &format!("{view_path}/actions"),
                Some(&tokens[seat]),
                Some(&action),
            )
            .await;
        let (status, after) = schemas.answer("postAction", res).await;
        assert_eq!(status, StatusCode::OK, "{game}: {action} refused: {after}");
        moves += 1;
        assert!(
            moves <= MAX_MOVES,
            "{game} did not end in {MAX_MOVES} moves"
        );
        if moves == 3 {
            // The log while the game is in progress, with hidden cards taken out.
            for token in tokens.iter().map(Some).chain([None]) {
                let res = app
                    .request(
                        Method::GET,
                        &format!("{view_path}/events"),
                        token.map(String::as_str),
                        None,
                    )
                    .await;
                schemas.answer("listGameEvents", res).await;
            }
            let res = app
                .request(Method::GET, &format!("{view_path}/file"), None, None)
                .await;
            let (status, _) = schemas.answer("getGameFile", res).await;
            assert_eq!(status, StatusCode::CONFLICT);
        }
    }
    for token in tokens.iter().map(Some).chain([None]) {
        let token = token.map(String::as_str);
        let res = app.request(Method::GET, &view_path, token, None).await;
        schemas.answer("getGame", res).await;
        let mut after = 0;
        loop {
            let path = format!("{view_path}/events?after={after}&limit=1000");
            let res = app.request(Method::GET, &path, token, None).await;
            let (status, page) = schemas.answer("listGameEvents", res).await;
            assert_eq!(status, StatusCode::OK, "{page}");
            // Once the game is over every event is whole: one of the game's own.
            for event in page["events"].as_array().expect("events") {
                schemas.check(
                    "#/components/schemas/EventData",
                    "a finished game's event data",
                    &event["data"],
                );
            }
            match page["next_after"].as_u64() {
                Some(next) => after = next,
                None => break,
            }
        }
        let res = app
            .request(Method::GET, &format!("{view_path}/state?at=1"), token, None)
            .await;
        let (status, _) = schemas.answer("getGameState", res).await;
        assert_eq!(status, StatusCode::OK);
    }
    for (operation, path) in [
        ("getGameAudit", format!("{view_path}/audit")),
        ("getGameFile", format!("{view_path}/file")),
        ("getGameScorecard", format!("{view_path}/scorecard")),
        ("getGameExport", format!("{view_path}/exports/cricsheet")),
    ] {
        let res = app.request(Method::GET, &path, None, None).await;
        let (status, body) = schemas.answer(operation, res).await;
        assert!(
            status == StatusCode::OK || status == StatusCode::NOT_FOUND,
            "{operation}: {status} {body}"
        );
    }
}

async fn what_the_server_sends_fits_the_document(app: TestApp) {
    let mut schemas = Schemas::new(document());
    for (i, game) in games().iter().enumerate() {
        let players = game.min_players.max(2);
        play_checked(&app, &mut schemas, game.id, players, 40 + i as u64).await;
    }
    let res = app.request(Method::GET, "/v1/catalog", None, None).await;
    schemas.answer("listCatalog", res).await;
    for game in games() {
        let res = app
            .request(Method::GET, &format!("/v1/catalog/{}", game.id), None, None)
            .await;
        schemas.answer("getCatalogGame", res).await;
        let path = format!("/v1/catalog/{}/schemas", game.id);
        let res = app.request(Method::GET, &path, None, None).await;
        schemas.answer("getCatalogGameSchemas", res).await;
    }
    for (operation, path) in [
        ("getHealth", "/healthz"),
        ("getReadiness", "/readyz"),
        ("getSigningKeys", "/.well-known/parlour-keys"),
        // After the games above ended: each one's signed checkpoint.
        ("listCheckpoints", "/v1/checkpoints"),
    ] {
        let res = app.request(Method::GET, path, None, None).await;
        let (status, _) = schemas.answer(operation, res).await;
        assert_eq!(status, StatusCode::OK, "{path}");
    }
}

async fn the_problems_the_server_sends_fit_the_document(app: TestApp) {
    let mut schemas = Schemas::new(document());
    let no_game = "/v1/games/00000000-0000-0000-0000-000000000000";
    for (operation, path) in [
        ("getGame", no_game.to_string()),
        ("getGameAudit", format!("{no_game}/audit")),
        ("listGameEvents", format!("{no_game}/events")),
        ("getCatalogGame", "/v1/catalog/snap".to_string()),
    ] {
        let res = app.request(Method::GET, &path, None, None).await;
        let (status, _) = schemas.answer(operation, res).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
    let (id, tokens) = app
        .create_game("girl", 2, Some(&seed_hex(1)), json!({}))
        .await;
    let view = format!("/v1/games/{id}");
    let res = app
        .request(Method::GET, &view, Some("not-a-token"), None)
        .await;
    let (status, _) = schemas.answer("getGame", res).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let res = app
        .request(
            Method::GET,
            &format!("{view}/events?limit=5000"),
            None,
            None,
        )
        .await;
    let (status, _) = schemas.answer("listGameEvents", res).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // Seat 1 out of turn, then seat 0 with a move of no kind.
    let actions = format!("{view}/actions");
    let turn_up = json!({"type": "turn_up"});
    let res = app
        .request(Method::POST, &actions, Some(&tokens[1]), Some(&turn_up))
        .await;
    let (status, _) = schemas.answer("postAction", res).await;
    assert_eq!(status, StatusCode::CONFLICT);
    let cheat = json!({"type": "cheat"});
    let res = app
        .request(Method::POST, &actions, Some(&tokens[0]), Some(&cheat))
        .await;
    let (status, _) = schemas.answer("postAction", res).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let body = json!({"game": "snap", "players": [{"name": "Ann"}, {"name": "Bea"}]});
    let res = app
        .request(Method::POST, "/v1/games", None, Some(&body))
        .await;
    let (status, _) = schemas.answer("createGame", res).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

/// What the document refuses, the server refuses too: a client that checks its bodies
/// against the document sends nothing the server turns away for its shape.
async fn bodies_the_document_refuses_the_server_refuses(app: TestApp) {
    let mut schemas = Schemas::new(document());
    let ann = json!({"name": "Ann"});
    let bad_bodies = [
        json!({"game": "girl", "players": [ann, {"name": "Bea"}], "seed": "not hex"}),
        json!({"game": "girl", "players": [ann, {"name": "B\u{7}ea"}]}),
        json!({"game": "girl", "players": [ann, {"name": "   "}]}),
        json!({"game": "girl", "players": [ann, {"name": "B".repeat(65)}]}),
        json!({"game": "googly", "players": [ann, {"name": "Bea"}],
            "options": {"teams": [{"players": (1..=12).map(|i| format!("P{i}")).collect::<Vec<_>>()}]}}),
        json!({"game": "googly", "players": [ann, {"name": "Bea"}],
            "options": {"teams": [{}, {}, {}]}}),
        json!({"game": "googly", "players": [ann, {"name": "Bea"}],
            "options": {"teams": [{"name": "Ken\u{1b}t"}]}}),
    ];
    for body in bad_bodies {
        assert!(
            !schemas
                .validator("#/components/schemas/NewGame")
                .is_valid(&body),
            "the document admits {body}"
        );
        let res = app
            .request(Method::POST, "/v1/games", None, Some(&body))
            .await;
        let (status, problem) = schemas.answer("createGame", res).await;
        assert!(
            status.is_client_error(),
            "{body} answered {status}: {problem}"
        );
    }
    let (id, tokens) = app
        .create_game("girl", 2, Some(&seed_hex(2)), json!({}))
        .await;
    let padded = json!({"type": "turn_up", "note": "x".repeat(1_000)});
    assert!(!schemas
        .validator("#/components/schemas/Action")
        .is_valid(&padded));
    let actions = format!("/v1/games/{id}/actions");
    let res = app
        .request(Method::POST, &actions, Some(&tokens[0]), Some(&padded))
        .await;
    let (status, problem) = schemas.answer("postAction", res).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{problem}");
}

/// What the account operations send, their problems included, fits the document; the links
/// from a created account lead to operations its token opens.
async fn the_account_answers_fit_the_document(app: TestApp) {
    let mut schemas = Schemas::new(document());
    let body = json!({"name": "Ann", "token_name": "laptop"});
    let res = app
        .request(Method::POST, "/v1/accounts", None, Some(&body))
        .await;
    let (status, created) = schemas.answer("createAccount", res).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let secret = created["token"]["secret"].as_str().unwrap().to_string();
    let res = app
        .request(Method::GET, "/v1/me", Some(&secret), None)
        .await;
    let (status, _) = schemas.answer("getMe", res).await;
    assert_eq!(status, StatusCode::OK);
    let res = app
        .request(
            Method::POST,
            "/v1/me/tokens",
            Some(&secret),
            Some(&json!({"name": "phone"})),
        )
        .await;
    let (status, minted) = schemas.answer("createAccountToken", res).await;
    assert_eq!(status, StatusCode::CREATED, "{minted}");
    let revoke = format!("/v1/me/tokens/{}", minted["id"].as_str().unwrap());
    let res = app
        .request(Method::DELETE, &revoke, Some(&secret), None)
        .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let res = app
        .request(Method::DELETE, &revoke, Some(&secret), None)
        .await;
    let (status, _) = schemas.answer("revokeAccountToken", res).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let res = app.request(Method::GET, "/v1/me", Some("seat"), None).await;
    let (status, _) = schemas.answer("getMe", res).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let res = app
        .request(
            Method::POST,
            "/v1/accounts",
            None,
            Some(&json!({"name": ""})),
        )
        .await;
    let (status, _) = schemas.answer("createAccount", res).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    for bad in [
        json!({"name": ""}),
        json!({"name": "A", "x": 1}),
        json!(["A"]),
    ] {
        assert!(!schemas
            .validator("#/components/schemas/NewAccount")
            .is_valid(&bad));
    }
    let doc = document();
    let links = &doc["paths"]["/v1/accounts"]["post"]["responses"]["201"]["links"];
    assert_eq!(links["Me"]["operationId"], json!("getMe"), "{links}");
    assert_eq!(
        links["Me"]["parameters"]["header.Authorization"],
        json!("Bearer {$response.body#/token/secret}")
    );
    assert!(doc["components"]["securitySchemes"]
        .get("account_token")
        .is_some());
}

on_both_backends!(
    the_account_answers_fit_the_document,
    what_the_server_sends_fits_the_document,
    the_problems_the_server_sends_fit_the_document,
    bodies_the_document_refuses_the_server_refuses,
);
