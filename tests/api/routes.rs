//! The routes the server serves are the routes its document names: each is declared once
//! (`routes::configure`), and both the server and the document are made from that
//! declaration. These tests hold the two together from the outside.

use std::collections::BTreeSet;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{spawn_app, Backend};

/// Every (method, path) the document names, with its path parameters filled in.
fn documented_operations() -> Vec<(Method, String)> {
    let document = parlour::openapi::spec();
    let mut operations = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_none() {
                continue;
            }
            let filled = path
                .replace("{id}", &uuid::Uuid::nil().to_string())
                .replace("{game}", "girl")
                .replace("{seat}", "0")
                .replace("{format}", "pgn")
                .replace("{token_id}", &uuid::Uuid::nil().to_string())
                .replace("{delivery}", "msg_0")
                .replace("{client_id}", "example.app");
            assert!(!filled.contains('{'), "a parameter left unfilled in {path}");
            operations.push((
                Method::from_bytes(method.to_uppercase().as_bytes()).unwrap(),
                filled,
            ));
        }
    }
    operations
}

/// Whether an answer is the server's own "no such route" (`startup::no_route`): a 405 for a
/// path it serves with other methods, or a 404 saying there is nothing there.
fn is_no_route(status: StatusCode, body: &Value) -> bool {
    let kind = body["type"].as_str().unwrap_or_default();
    let detail = body["detail"].as_str().unwrap_or_default();
    status == StatusCode::METHOD_NOT_ALLOWED && kind == "/problems/method-not-allowed"
        || status == StatusCode::NOT_FOUND && detail.starts_with("there is nothing at")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_the_document_names_is_served_by_its_own_handler() {
    let app = spawn_app(Backend::Sqlite).await;
    let operations = documented_operations();
    assert!(operations.len() >= 50, "{} operations", operations.len());
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    for (method, path) in &operations {
        let mut request = client.request(method.clone(), format!("{}{path}", app.address));
        if *method != Method::GET && *method != Method::DELETE {
            request = request.json(&json!({}));
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        // A stream that opened answers 200 and never ends; its headers are enough.
        let body: Value = if status == StatusCode::OK && path.ends_with("/stream") {
            Value::Null
        } else {
            response.json().await.unwrap_or(Value::Null)
        };
        assert!(
            !is_no_route(status, &body),
            "{method} {path} fell through to the server's no-route answer: {status} {body}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_route_outside_the_document_is_not_served() {
    // The other side: a method the document does not give a path is the server's 405, and a
    // path it does not name is its 404, so nothing is served that the document leaves out
    // (beyond the pages outside the API: the web client, the docs, the metrics).
    let app = spawn_app(Backend::Sqlite).await;
    let document = parlour::openapi::spec();
    let paths: BTreeSet<&String> = document["paths"].as_object().unwrap().keys().collect();
    assert!(paths.contains(&"/v1/games".to_string()));
    assert!(!paths.contains(&"/v1/nothing-here".to_string()));
    assert!(document["paths"]["/v1/games"].get("patch").is_none());
    for (method, path) in [
        (Method::PATCH, "/v1/games"),
        (Method::GET, "/v1/nothing-here"),
    ] {
        let response = app
            .client
            .request(method.clone(), format!("{}{path}", app.address))
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        let status = response.status();
        let body: Value = response.json().await.unwrap();
        assert!(
            is_no_route(status, &body),
            "{method} {path}: {status} {body}"
        );
    }
}
