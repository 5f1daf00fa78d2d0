//! Apps acting for players (issue 39): OAuth 2.0's authorization code flow with PKCE, the
//! scopes every account route needs, and a player taking an app's access back. The flow is
//! driven here as an app and a browser would drive it, over HTTP; `tools/oauth-check.py`
//! drives it again with a real OAuth client library (authlib), and `web/tests/oauth.test.mjs`
//! with a real browser on the consent page.

use std::sync::Arc;
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::helpers::{
    assert_problem, fresh_database, new_account, serve_with_clock, Backend, TestApp,
};
use crate::on_both_backends;

const APP: &str = "example.app";
const BACK: &str = "https://example.app/callback";
const VERIFIER: &str = "a-verifier-of-forty-three-or-more-unreserved-characters";

fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// What the consent page sends when the player says yes to `scope`.
fn asking(scope: &str) -> Value {
    json!({
        "response_type": "code",
        "client_id": APP,
        "redirect_uri": BACK,
        "scope": scope,
        "state": "s-1",
        "code_challenge": challenge(VERIFIER),
        "code_challenge_method": "S256",
    })
}

/// The player (with `token`) approves `scope` for the app: the code.
async fn approve(app: &TestApp, token: &str, scope: &str) -> String {
    let (status, approved) = app
        .post("/v1/oauth/authorizations", Some(token), &asking(scope))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{approved}");
    let to = approved["redirect_to"].as_str().unwrap();
    assert!(to.starts_with(&format!("{BACK}?")), "{to}");
    assert!(to.contains("state=s-1"), "{to}");
    approved["code"].as_str().unwrap().to_string()
}

/// The app's exchange at the token endpoint: its status and answer.
async fn exchange(app: &TestApp, form: &[(&str, &str)]) -> (StatusCode, Value) {
    let res = app
        .client
        .post(format!("{}/oauth/token", app.address))
        .form(form)
        .send()
        .await
        .unwrap();
    let status = res.status();
    assert_eq!(res.headers()["cache-control"], "no-store");
    assert_eq!(res.headers()["content-type"], "application/json");
    (status, res.json().await.unwrap())
}

fn exchange_form(code: &str) -> Vec<(&'static str, String)> {
    vec![
        ("grant_type", "authorization_code".into()),
        ("code", code.into()),
        ("redirect_uri", BACK.into()),
        ("client_id", APP.into()),
        ("code_verifier", VERIFIER.into()),
    ]
}

async fn exchange_code(app: &TestApp, code: &str) -> (StatusCode, Value) {
    let form = exchange_form(code);
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    exchange(app, &form).await
}

/// The whole flow for `scope`: the app's token.
async fn grant(app: &TestApp, token: &str, scope: &str) -> String {
    let code = approve(app, token, scope).await;
    let (status, granted) = exchange_code(app, &code).await;
    assert_eq!(status, StatusCode::OK, "{granted}");
    assert_eq!(granted["token_type"], "Bearer");
    assert_eq!(granted["scope"], scope);
    granted["access_token"].as_str().unwrap().to_string()
}

/// A body for the methods that take one: enough to get past the scope check, which comes
/// before the body is read.
fn body_for(method: &Method) -> Option<Value> {
    [Method::POST, Method::PUT, Method::PATCH]
        .contains(method)
        .then(|| json!({}))
}

async fn status_of(app: &TestApp, method: Method, path: &str, token: &str) -> StatusCode {
    let body = body_for(&method);
    app.request(method, path, Some(token), body.as_ref())
        .await
        .status()
}

async fn an_app_granted_some_scopes_acts_for_the_player_within_them_and_no_further(app: TestApp) {
    let ann = new_account(&app, "Ann").await;
    // The consent page checks the request first: what to show, where a "no" goes.
    let query = format!(
        "response_type=code&client_id={APP}&redirect_uri={}&scope=games%3Aread%20games%3Aplay&state=s-1&code_challenge={}&code_challenge_method=S256",
        "https%3A%2F%2Fexample.app%2Fcallback",
        challenge(VERIFIER)
    );
    let (status, checked) = app.get(&format!("/v1/oauth/authorize?{query}"), None).await;
    assert_eq!(status, StatusCode::OK, "{checked}");
    assert_eq!(checked["redirect_origin"], "https://example.app");
    assert_eq!(checked["scopes"], json!(["games:read", "games:play"]));
    assert!(checked["deny_to"]
        .as_str()
        .unwrap()
        .contains("error=access_denied"));

    let token = grant(&app, &ann, "games:read games:play").await;
    let (status, me) = app.get("/v1/me", Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["account"]["name"], "Ann");
    // An app that may not manage the account is told of its own token only.
    assert_eq!(me["tokens"].as_array().unwrap().len(), 1, "{me}");
    assert_eq!(me["tokens"][0]["app"], APP);
    assert_eq!(me["tokens"][0]["signed_in_with"], "app");
    assert_eq!(
        me["tokens"][0]["scopes"],
        json!(["games:read", "games:play"])
    );
    let (status, _) = app.get("/v1/me/games", Some(&token)).await;
    assert_eq!(status, StatusCode::OK);

    // Hosting, webhooks and the account itself are out of its reach, and it is told which
    // scope it lacks.
    for (method, path, scope) in [
        (Method::POST, "/v1/me/games", "games:host"),
        (Method::POST, "/v1/webhooks", "webhooks:manage"),
        (Method::POST, "/v1/me/tokens", "account:manage"),
        (Method::POST, "/v1/oauth/authorizations", "account:manage"),
    ] {
        let res = app
            .request(method, path, Some(&token), Some(&json!({})))
            .await;
        let challenge = res.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .to_string();
        let problem = assert_problem(res, StatusCode::FORBIDDEN, "insufficient-scope").await;
        assert_eq!(problem["scope"], scope, "{path}");
        assert!(
            challenge.contains(&format!("error=\"insufficient_scope\", scope=\"{scope}\"")),
            "{challenge}"
        );
    }

    // A token such an app mints belongs to the app as well, and goes with it.
    let trusted = grant(&app, &ann, "games:read account:manage").await;
    let (status, minted) = app
        .post("/v1/me/tokens", Some(&trusted), &json!({"name": "worker"}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{minted}");
    assert_eq!(minted["scopes"], json!(["games:read", "account:manage"]));
    let worker = minted["secret"].as_str().unwrap().to_string();
    let (_, me) = app.get("/v1/me", Some(&worker)).await;
    let apps_of: Vec<&Value> = me["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["app"])
        .collect();
    // Ann's own first token, and the app's three.
    assert_eq!(
        apps_of,
        vec![&Value::Null, &json!(APP), &json!(APP), &json!(APP)],
        "{me}"
    );

    // The player sees the app, and takes it back: its tokens are refused from then on.
    let (status, apps) = app.get("/v1/me/apps", Some(&ann)).await;
    assert_eq!(status, StatusCode::OK, "{apps}");
    assert_eq!(apps["apps"][0]["client_id"], APP);
    assert_eq!(
        apps["apps"][0]["scopes"],
        json!(["games:read", "games:play", "account:manage"])
    );
    assert_eq!(apps["apps"][0]["tokens"], 3);
    let (_, me) = app.get("/v1/me", Some(&ann)).await;
    assert_eq!(me["tokens"].as_array().unwrap().len(), 4, "{me}");
    let removed = app
        .request(
            Method::DELETE,
            &format!("/v1/me/apps/{APP}"),
            Some(&ann),
            None,
        )
        .await;
    assert_eq!(removed.status(), StatusCode::NO_CONTENT);
    for gone in [&token, &trusted, &worker] {
        assert_eq!(
            app.get("/v1/me", Some(gone)).await.0,
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(app.get("/v1/me", Some(&ann)).await.0, StatusCode::OK);
    let again = app
        .request(
            Method::DELETE,
            &format!("/v1/me/apps/{APP}"),
            Some(&ann),
            None,
        )
        .await;
    assert_problem(again, StatusCode::NOT_FOUND, "not-found").await;
}

async fn a_code_works_once_with_its_verifier_and_a_second_use_revokes_what_it_gave(app: TestApp) {
    let ann = new_account(&app, "Ann").await;
    let code = approve(&app, &ann, "games:read").await;
    // Each part of the exchange must be the request's own.
    let mut wrong = exchange_form(&code);
    for (field, value) in [
        (
            "code_verifier",
            "another-verifier-of-forty-three-or-more-characters",
        ),
        ("redirect_uri", "https://example.app/elsewhere"),
        ("client_id", "other.app"),
    ] {
        let form: Vec<(&str, &str)> = wrong
            .iter()
            .map(|(k, v)| (*k, if *k == field { value } else { v.as_str() }))
            .collect();
        let (status, refused) = exchange(&app, &form).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{field}: {refused}");
        assert_eq!(refused["error"], "invalid_grant", "{field}");
        assert_eq!(refused["type"], "/problems/oauth-refused");
    }
    wrong.retain(|(k, _)| *k != "code_verifier");
    let form: Vec<(&str, &str)> = wrong.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (status, refused) = exchange(&app, &form).await;
    assert_eq!(
        (status, refused["error"].clone()),
        (StatusCode::BAD_REQUEST, json!("invalid_request"))
    );

    // The failed tries did not use the code up.
    let (status, granted) = exchange_code(&app, &code).await;
    assert_eq!(status, StatusCode::OK, "{granted}");
    let token = granted["access_token"].as_str().unwrap();
    assert_eq!(app.get("/v1/me", Some(token)).await.0, StatusCode::OK);

    // A code presented again may have been stolen: refused, and what it gave is revoked.
    let (status, refused) = exchange_code(&app, &code).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(refused["error"], "invalid_grant");
    assert_eq!(
        app.get("/v1/me", Some(token)).await.0,
        StatusCode::UNAUTHORIZED
    );

    // Other grants, and forms that are not forms, are refused as RFC 6749 says.
    let (status, refused) = exchange(&app, &[("grant_type", "password")]).await;
    assert_eq!(
        (status, refused["error"].clone()),
        (StatusCode::BAD_REQUEST, json!("unsupported_grant_type"))
    );
    let res = app
        .client
        .post(format!("{}/oauth/token", app.address))
        .json(&json!({"grant_type": "authorization_code"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let refused: Value = res.json().await.unwrap();
    assert_eq!(refused["error"], "invalid_request");
    let res = app
        .client
        .post(format!("{}/oauth/token", app.address))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("grant_type=authorization_code&code=a&code=b")
        .send()
        .await
        .unwrap();
    let refused: Value = res.json().await.unwrap();
    assert_eq!(refused["error"], "invalid_request", "{refused}");
}

async fn a_player_grants_no_more_than_their_token_holds_and_a_bad_request_is_never_approved(
    app: TestApp,
) {
    let ann = new_account(&app, "Ann").await;
    let (status, minted) = app
        .post(
            "/v1/me/tokens",
            Some(&ann),
            &json!({"name": "reader", "scopes": ["games:read", "account:manage"]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{minted}");
    assert_eq!(minted["scopes"], json!(["games:read", "account:manage"]));
    let reader = minted["secret"].as_str().unwrap();
    // It may not grant what it does not hold, nor mint it.
    let res = app
        .request(
            Method::POST,
            "/v1/oauth/authorizations",
            Some(reader),
            Some(&asking("games:read games:play")),
        )
        .await;
    let problem = assert_problem(res, StatusCode::FORBIDDEN, "insufficient-scope").await;
    assert_eq!(problem["scope"], "games:play");
    let res = app
        .request(
            Method::POST,
            "/v1/me/tokens",
            Some(reader),
            Some(&json!({"name": "more", "scopes": ["webhooks:manage"]})),
        )
        .await;
    let problem = assert_problem(res, StatusCode::FORBIDDEN, "insufficient-scope").await;
    assert_eq!(problem["scope"], "webhooks:manage");
    let res = app
        .request(
            Method::POST,
            "/v1/me/tokens",
            Some(reader),
            Some(&json!({"name": "none", "scopes": []})),
        )
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    let res = app
        .request(
            Method::POST,
            "/v1/me/tokens",
            Some(reader),
            Some(&json!({"name": "odd", "scopes": ["admin"]})),
        )
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    // Left out, a new token holds what its maker holds.
    let (_, same) = app
        .post("/v1/me/tokens", Some(reader), &json!({"name": "same"}))
        .await;
    assert_eq!(same["scopes"], json!(["games:read", "account:manage"]));
    assert!(grant(&app, reader, "games:read").await.starts_with("acct_"));

    // A faulty client_id or redirect_uri is told to the player only; any other fault is
    // told to the app too, through its redirect.
    for (field, value, redirect) in [
        ("client_id", json!("not an id"), false),
        ("redirect_uri", json!("http://example.app/cb"), false),
        ("redirect_uri", json!("https://example.app/cb#part"), false),
        ("scope", json!("games:read admin"), true),
        ("code_challenge_method", json!("plain"), true),
        ("response_type", json!("token"), true),
    ] {
        let mut body = asking("games:read");
        body[field] = value;
        let res = app
            .request(
                Method::POST,
                "/v1/oauth/authorizations",
                Some(&ann),
                Some(&body),
            )
            .await;
        let problem = assert_problem(
            res,
            StatusCode::BAD_REQUEST,
            "invalid-authorization-request",
        )
        .await;
        assert_eq!(
            problem.get("redirect_to").is_some(),
            redirect,
            "{field}: {problem}"
        );
    }
    let (_, apps) = app.get("/v1/me/apps", Some(&ann)).await;
    assert_eq!(
        apps["apps"].as_array().unwrap().len(),
        1,
        "only the reader's grant: {apps}"
    );
}

async fn revoking_an_apps_token_ends_the_stream_it_holds(app: TestApp) {
    let ann = new_account(&app, "Ann").await;
    let token = grant(&app, &ann, "games:read").await;
    let mut stream = app
        .client
        .get(format!("{}/v1/me/stream", app.address))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    // The app revokes its own token (RFC 7009); an unknown token is no error.
    for revoked in [token.as_str(), "acct_not-a-token", "anything"] {
        let res = app
            .client
            .post(format!("{}/oauth/revoke", app.address))
            .form(&[("token", revoked)])
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK);
    }
    let ended = tokio::time::timeout(Duration::from_secs(20), async {
        while let Ok(Some(_)) = stream.chunk().await {}
    })
    .await;
    assert!(ended.is_ok(), "the revoked app's stream went on");
    assert_eq!(
        app.get("/v1/me", Some(&token)).await.0,
        StatusCode::UNAUTHORIZED
    );
    // The metadata names the endpoints this test used.
    let (status, metadata) = app
        .get("/.well-known/oauth-authorization-server", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        metadata["token_endpoint"],
        format!("{}/oauth/token", app.address)
    );
    assert_eq!(
        metadata["revocation_endpoint"],
        format!("{}/oauth/revoke", app.address)
    );
    assert_eq!(
        metadata["code_challenge_methods_supported"],
        json!(["S256"])
    );
}

/// Every operation the document gives an account token names the one scope it needs, and
/// the server holds it to that: a token with every other scope is refused with that scope
/// named, and a token with that scope alone gets past the check. (`GET /v1/me` names none, and
/// any token reads it.)
async fn every_operation_needs_exactly_the_scope_its_document_names(app: TestApp) {
    let ann = new_account(&app, "Ann").await;
    let mut only = std::collections::HashMap::new();
    let mut all_but = std::collections::HashMap::new();
    let names = [
        "games:read",
        "games:play",
        "games:host",
        "webhooks:manage",
        "account:manage",
    ];
    for name in names {
        let (_, minted) = app
            .post(
                "/v1/me/tokens",
                Some(&ann),
                &json!({"name": name, "scopes": [name]}),
            )
            .await;
        only.insert(name, minted["secret"].as_str().unwrap().to_string());
        let others: Vec<&str> = names.iter().copied().filter(|n| *n != name).collect();
        let (_, minted) = app
            .post(
                "/v1/me/tokens",
                Some(&ann),
                &json!({"name": name, "scopes": others}),
            )
            .await;
        all_but.insert(name, minted["secret"].as_str().unwrap().to_string());
    }
    let document = parlour::openapi::spec();
    let mut checked = 0;
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let Some(security) = operation["security"].as_array() else {
                continue;
            };
            let Some(needed) = security.iter().find_map(|r| r.get("account_token")) else {
                continue;
            };
            let oauth = security.iter().find_map(|r| r.get("oauth2"));
            assert_eq!(
                oauth,
                Some(needed),
                "{method} {path}: the OAuth scheme names the same scopes"
            );
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let url = path
                .replace("{id}", "01a24efb-5612-7266-93d5-4de64db2efdf")
                .replace("{delivery}", "01a24efb-5612-7266-93d5-4de64db2efdf")
                .replace("{seat}", "0")
                .replace("{token_id}", "x")
                .replace("{client_id}", "x");
            assert!(
                !url.contains('{'),
                "{path}: fill its parameters in this test"
            );
            // Required query parameters, so that the request reaches its handler.
            let required: Vec<String> = operation["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "query" && p["required"] == true)
                .map(|p| format!("{}=1", p["name"].as_str().unwrap()))
                .collect();
            let url = if required.is_empty() {
                url
            } else {
                format!("{url}?{}", required.join("&"))
            };
            let needed = needed.as_array().unwrap();
            match needed.as_slice() {
                [] => {
                    for token in only.values() {
                        assert_eq!(
                            status_of(&app, method.clone(), &url, token).await,
                            StatusCode::OK,
                            "{method} {path}"
                        );
                    }
                }
                [scope] => {
                    let scope = scope.as_str().unwrap();
                    assert!(names.contains(&scope), "{path}: {scope}");
                    assert!(
                        operation["responses"]["403"].is_object(),
                        "{method} {path} documents its 403"
                    );
                    let res = app
                        .request(
                            method.clone(),
                            &url,
                            Some(&all_but[scope]),
                            body_for(&method).as_ref(),
                        )
                        .await;
                    let problem =
                        assert_problem(res, StatusCode::FORBIDDEN, "insufficient-scope").await;
                    assert_eq!(problem["scope"], scope, "{method} {path}");
                    let res = app
                        .request(
                            method.clone(),
                            &url,
                            Some(&only[scope]),
                            body_for(&method).as_ref(),
                        )
                        .await;
                    let status = res.status();
                    let body: Value = if res
                        .headers()
                        .get("content-type")
                        .is_some_and(|t| t.to_str().unwrap_or_default().contains("json"))
                    {
                        res.json().await.unwrap_or(Value::Null)
                    } else {
                        Value::Null
                    };
                    assert!(
                        status != StatusCode::FORBIDDEN
                            || body["type"] != "/problems/insufficient-scope",
                        "{method} {path} refused a token holding {scope}: {body}"
                    );
                }
                more => panic!("{method} {path} names more than one scope: {more:?}"),
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 45,
        "only {checked} operations take an account token"
    );
}

/// Five apps let in: read two at a time by the links, the list is all five, oldest grant
/// first, each once.
async fn the_apps_an_account_let_in_are_read_whole_a_page_at_a_time(app: TestApp) {
    let ann = new_account(&app, "Ann").await;
    let names = [
        "one.example",
        "two.example",
        "three.example",
        "four.example",
        "five.example",
    ];
    for name in names {
        let mut request = asking("games:read");
        request["client_id"] = json!(name);
        request["redirect_uri"] = json!(format!("https://{name}/callback"));
        let (status, approved) = app
            .post("/v1/oauth/authorizations", Some(&ann), &request)
            .await;
        assert_eq!(status, StatusCode::CREATED, "{approved}");
        let code = approved["code"].as_str().unwrap().to_string();
        let back = format!("https://{name}/callback");
        let (status, granted) = exchange(
            &app,
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", &back),
                ("client_id", name),
                ("code_verifier", VERIFIER),
            ],
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{granted}");
    }
    let pages = crate::paging::every_page(&app, "/v1/me/apps?limit=2", Some(&ann)).await;
    assert_eq!(pages.len(), 3, "{pages:?}");
    let listed: Vec<Value> = pages
        .iter()
        .flat_map(|page| page["apps"].as_array().unwrap().clone())
        .collect();
    let ids: Vec<&str> = listed
        .iter()
        .map(|app| app["client_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, names, "{listed:?}");
}

on_both_backends!(
    an_app_granted_some_scopes_acts_for_the_player_within_them_and_no_further,
    a_code_works_once_with_its_verifier_and_a_second_use_revokes_what_it_gave,
    a_player_grants_no_more_than_their_token_holds_and_a_bad_request_is_never_approved,
    revoking_an_apps_token_ends_the_stream_it_holds,
    every_operation_needs_exactly_the_scope_its_document_names,
    the_apps_an_account_let_in_are_read_whole_a_page_at_a_time,
);

async fn a_code_is_worthless_after_ten_minutes(backend: Backend) {
    let (url, _guard) = fresh_database(backend).await;
    let clock = Arc::new(parlour::service::ManualClock::new());
    let (app, _, _running) =
        serve_with_clock(&url, clock.clone(), parlour::startup::Settings::default()).await;
    let ann = new_account(&app, "Ann").await;
    let code = approve(&app, &ann, "games:read").await;
    clock.advance(Duration::from_secs(10 * 60));
    let (status, refused) = exchange_code(&app, &code).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(refused["error"], "invalid_grant", "{refused}");
    // One approved a moment before is still good.
    let code = approve(&app, &ann, "games:read").await;
    clock.advance(Duration::from_secs(10 * 60 - 1));
    assert_eq!(exchange_code(&app, &code).await.0, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_is_worthless_after_ten_minutes_on_sqlite() {
    a_code_is_worthless_after_ten_minutes(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_is_worthless_after_ten_minutes_on_postgres() {
    a_code_is_worthless_after_ten_minutes(Backend::Postgres).await;
}
