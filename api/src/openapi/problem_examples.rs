//! An example on every error answer of the document (issue 39): each is a real answer of the
//! server, one per problem code, kept in `openapi/examples/problems.json` by the test that
//! provokes them (`tests/api/problem_examples.rs`), and published once as a component
//! (`#/components/examples/<Code>Problem`) that each error response refers to.
//!
//! Which problems an error response can carry is what its description names in backticks
//! (`` `seat-taken` ``), and, for the statuses every operation shares, the one problem of that
//! status any request can meet (any `400` can be a `malformed-request`, any `429` a
//! `rate-limited`, any `503` an `unavailable`). A `404`, `403`, `409` or `422` names its
//! problems; `tests/api/contract.rs` holds every error response to having at least one, each
//! of its own status.

use serde_json::{json, Map, Value};

use crate::error::Problem;

/// The answers, by problem code.
const ANSWERS: &str = include_str!("../../../openapi/examples/problems.json");

/// The problem any request answered with `status` may carry, whatever its description says.
fn shared(status: &str) -> Option<Problem> {
    Some(match status {
        "400" => Problem::MalformedRequest,
        "401" => Problem::Unauthorized,
        "412" => Problem::VersionMismatch,
        "413" => Problem::PayloadTooLarge,
        "415" => Problem::UnsupportedMediaType,
        "428" => Problem::PreconditionRequired,
        "429" => Problem::RateLimited,
        "503" => Problem::Unavailable,
        "4XX" => Problem::MethodNotAllowed,
        "5XX" => Problem::Internal,
        _ => return None,
    })
}

/// Whether a problem can be the answer of an error response with `status` (`4XX` and `5XX`
/// cover their class).
pub fn fits(problem: Problem, status: &str) -> bool {
    let code = problem.status().as_u16().to_string();
    match status {
        "4XX" => code.starts_with('4'),
        "5XX" => code.starts_with('5'),
        exact => code == exact,
    }
}

/// The problems an error response with `status` and `description` can carry: those its
/// description names that fit its status, and the one every request of that status can meet.
pub fn problems_of(status: &str, description: &str) -> Vec<Problem> {
    let mut found: Vec<Problem> = description
        .split('`')
        .skip(1)
        .step_by(2)
        .filter_map(Problem::from_code)
        .filter(|problem| fits(*problem, status))
        .collect();
    if let Some(problem) = shared(status) {
        found.push(problem);
    }
    let mut unique = Vec::new();
    for problem in found {
        if !unique.contains(&problem) {
            unique.push(problem);
        }
    }
    unique
}

/// The component name of a problem's example: `seat-taken` is `SeatTakenProblem`.
pub fn component(problem: Problem) -> String {
    let mut name: String = problem
        .code()
        .split('-')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(chars).collect()
            })
        })
        .collect();
    name.push_str("Problem");
    name
}

/// The document with the examples published and referred to from every error response.
pub fn with_problem_examples(mut document: Value) -> Value {
    // A file that is not a JSON object is left out (the test that writes it fails first).
    let Ok(Value::Object(answers)) = serde_json::from_str::<Value>(ANSWERS) else {
        return document;
    };
    let mut components = Map::new();
    for problem in Problem::ALL {
        if let Some(answer) = answers.get(problem.code()) {
            components.insert(
                component(*problem),
                json!({"summary": problem.title(), "value": answer}),
            );
        }
    }
    if let Some(Value::Object(paths)) = document.get_mut("paths") {
        for item in paths.values_mut() {
            let Value::Object(item) = item else { continue };
            for operation in item.values_mut() {
                let Some(Value::Object(responses)) = operation.get_mut("responses") else {
                    continue;
                };
                for (status, response) in responses.iter_mut() {
                    refer(status, response, &components);
                }
            }
        }
    }
    // Only the examples some response refers to: an unreferenced component is an error to the
    // document's validators.
    let referred = serde_json::to_string(&document["paths"]).unwrap_or_default();
    components.retain(|name, _| referred.contains(&format!("\"#/components/examples/{name}\"")));
    if let Some(Value::Object(root)) = document.get_mut("components") {
        root.insert("examples".into(), Value::Object(components));
    }
    document
}

/// Gives one error response its examples: a reference to each problem it can carry, and an
/// answer captured for this very operation (`example`, from `openapi/examples/`) kept in its
/// problem's place.
fn refer(status: &str, response: &mut Value, components: &Map<String, Value>) {
    if !(status.starts_with('4') || status.starts_with('5')) {
        return;
    }
    let description = response
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let Some(Value::Object(content)) = response.pointer_mut("/content/application~1problem+json")
    else {
        return;
    };
    let mut examples = Map::new();
    for problem in problems_of(status, &description) {
        let name = component(problem);
        if components.contains_key(&name) {
            examples.insert(
                problem.code().to_string(),
                json!({"$ref": format!("#/components/examples/{name}")}),
            );
        }
    }
    if let Some(own) = content.remove("example") {
        let code = own
            .get("type")
            .and_then(Value::as_str)
            .and_then(|kind| kind.strip_prefix("/problems/"))
            .unwrap_or("example")
            .to_string();
        let summary = Problem::from_code(&code).map_or("", Problem::title);
        examples.insert(code, json!({"summary": summary, "value": own}));
    }
    if !examples.is_empty() {
        content.insert("examples".into(), Value::Object(examples));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_carries_the_problems_it_names_of_its_status_and_the_one_all_of_its_status_share()
    {
        assert_eq!(
            problems_of(
                "409",
                "The seat is taken (`seat-taken`), or `not-your-move`"
            ),
            vec![Problem::SeatTaken, Problem::NotYourMove]
        );
        // A code of another status, or none at all, is not one of its problems.
        assert_eq!(
            problems_of(
                "404",
                "No such game (`game-not-found`); see `seat-taken`, `nothing`"
            ),
            vec![Problem::GameNotFound]
        );
        assert_eq!(
            problems_of("429", "Too many streams (`too-many-streams`)"),
            vec![Problem::TooManyStreams, Problem::RateLimited]
        );
        assert_eq!(
            problems_of("400", "Malformed (`malformed-request`)"),
            vec![Problem::MalformedRequest]
        );
        assert_eq!(problems_of("5XX", "A fault"), vec![Problem::Internal]);
        assert!(problems_of("404", "No such game").is_empty());
    }

    #[test]
    fn a_problems_example_is_named_after_its_code() {
        assert_eq!(component(Problem::SeatTaken), "SeatTakenProblem");
        assert_eq!(component(Problem::Internal), "InternalProblem");
    }
}
