//! Accounts and their named tokens: an account is created with a first token shown once, reads
//! itself at `/v1/me`, mints a token per device and revokes any of them; a revoked token is
//! refused at once, on every instance; seat tokens and account tokens each open only their own
//! routes; and a refused request stores nothing.

use reqwest::{Method, Response, StatusCode};
use serde_json::{json, Value};

use parlour::service::token_hash;

use crate::helpers::{assert_problem, TestApp};
use crate::on_both_backends;

/// An account created through `app`: the answer, and its first token's secret.
async fn create_account(app: &TestApp, body: &Value) -> (Value, String) {
    let (status, created) = app.post("/v1/accounts", None, body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let secret = created["token"]["secret"].as_str().unwrap().to_string();
    (created, secret)
}

async fn me(app: &TestApp, token: &str) -> Value {
    let (status, me) = app.get("/v1/me", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    me
}

/// Mints a token named `name` with `token`: the answer and the new secret.
async fn mint(app: &TestApp, token: &str, name: &str) -> (Value, String) {
    let (status, minted) = app
        .post("/v1/me/tokens", Some(token), &json!({"name": name}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{minted}");
    let secret = minted["secret"].as_str().unwrap().to_string();
    (minted, secret)
}

async fn revoke(app: &TestApp, token: &str, id: &str) -> Response {
    app.request(
        Method::DELETE,
        &format!("/v1/me/tokens/{id}"),
        Some(token),
        None,
    )
    .await
}

/// Asserts a 401 as every 401 is: problem+json `unauthorized` with a bearer challenge.
async fn assert_refused(res: Response) -> Value {
    let challenge = res
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_string());
    assert_eq!(challenge.as_deref(), Some("Bearer realm=\"parlour\""));
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await
}

/// How many rows `table` holds, read from the database itself.
async fn rows(app: &TestApp, table: &str) -> i64 {
    let sql = format!("SELECT COUNT(*) FROM {table}");
    if app.database_url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(&app.database_url).await.unwrap();
        let count = sqlx::query_scalar(&sql).fetch_one(&pool).await.unwrap();
        pool.close().await;
        count
    } else {
        let pool = sqlx::PgPool::connect(&app.database_url).await.unwrap();
        let count = sqlx::query_scalar(&sql).fetch_one(&pool).await.unwrap();
        pool.close().await;
        count
    }
}

fn ids(me: &Value) -> Vec<String> {
    me["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect()
}

async fn an_account_is_created_with_a_first_token_shown_once_and_kept_as_a_hash(app: TestApp) {
    let res = app
        .request(
            Method::POST,
            "/v1/accounts",
            None,
            Some(&json!({"name": "  Ann \t"})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let header = |name: &str| {
        res.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    };
    assert_eq!(header("cache-control").as_deref(), Some("no-store"));
    assert_eq!(header("location").as_deref(), Some("/v1/me"));
    let created: Value = res.json().await.unwrap();
    assert_eq!(created["account"]["name"], json!("Ann"), "{created}");
    assert!(created["account"]["created_at"].is_string(), "{created}");
    assert_eq!(created["token"]["name"], json!("first"));
    let secret = created["token"]["secret"].as_str().unwrap();
    assert!(secret.starts_with("acct_"), "{secret}");
    assert_eq!(secret.len(), "acct_".len() + 64);

    // The store holds the secret's hash, and the secret itself nowhere.
    let (account, token) = app
        .store
        .account_for_token(&token_hash(secret))
        .await
        .unwrap()
        .expect("the hash opens the account");
    assert_eq!(json!(account.id.to_string()), created["account"]["id"]);
    assert_eq!(json!(token.id.to_string()), created["token"]["id"]);
    assert!(app.store.account_for_token(secret).await.unwrap().is_none());

    let me = me(&app, secret).await;
    assert_eq!(me["account"], created["account"]);
    assert_eq!(
        me["tokens"],
        json!([{
            "id": created["token"]["id"],
            "name": "first",
            "created_at": created["token"]["created_at"],
            "current": true,
            "signed_in_with": "account",
            "scopes": ["games:read", "games:play", "games:host", "webhooks:manage", "account:manage"],
            "app": null,
        }])
    );
    assert!(
        !me.to_string().contains(secret),
        "/v1/me never shows a secret"
    );

    let (named, _) = create_account(&app, &json!({"name": "Bea", "token_name": "laptop"})).await;
    assert_eq!(named["token"]["name"], json!("laptop"));
    assert_ne!(named["account"]["id"], created["account"]["id"]);
}

async fn each_minted_token_opens_the_account_and_is_listed_without_its_secret(app: TestApp) {
    let (created, first) = create_account(&app, &json!({"name": "Ann"})).await;
    let (phone, phone_secret) = mint(&app, &first, " phone ").await;
    assert_eq!(phone["name"], json!("phone"));
    assert!(phone_secret.starts_with("acct_"));
    assert_ne!(phone_secret, first);
    let (tablet, tablet_secret) = mint(&app, &phone_secret, "tablet").await;

    let seen = me(&app, &phone_secret).await;
    assert_eq!(seen["account"], created["account"]);
    let names: Vec<&str> = seen["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["first", "phone", "tablet"], "oldest first");
    let made: Vec<&Value> = seen["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["signed_in_with"])
        .collect();
    assert_eq!(made, [&json!("account"), &json!("token"), &json!("token")]);
    let current: Vec<&Value> = seen["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["current"] == json!(true))
        .map(|t| &t["id"])
        .collect();
    assert_eq!(current, [&phone["id"]], "only the token sent is current");
    let text = seen.to_string();
    for secret in [&first, &phone_secret, &tablet_secret] {
        assert!(!text.contains(secret.as_str()), "{text}");
    }
    assert_eq!(
        me(&app, &tablet_secret).await["account"]["id"],
        created["account"]["id"]
    );
    assert!(ids(&seen).contains(&tablet["id"].as_str().unwrap().to_string()));
}

async fn a_revoked_token_is_refused_at_once_and_can_neither_mint_nor_revoke(app: TestApp) {
    let (created, first) = create_account(&app, &json!({"name": "Ann"})).await;
    let (phone, phone_secret) = mint(&app, &first, "phone").await;
    let phone_id = phone["id"].as_str().unwrap();
    let res = revoke(&app, &first, phone_id).await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);

    // The phone's token stops working at once, for everything.
    assert_refused(
        app.request(Method::GET, "/v1/me", Some(&phone_secret), None)
            .await,
    )
    .await;
    let res = app
        .request(
            Method::POST,
            "/v1/me/tokens",
            Some(&phone_secret),
            Some(&json!({"name": "again"})),
        )
        .await;
    assert_refused(res).await;
    let first_id = created["token"]["id"].as_str().unwrap();
    assert_refused(revoke(&app, &phone_secret, first_id).await).await;
    // ... and what it tried did nothing: the first token still works, alone.
    assert_eq!(ids(&me(&app, &first).await), [first_id]);
    // Revoking it again is revoking a token the account no longer has.
    assert_problem(
        revoke(&app, &first, phone_id).await,
        StatusCode::NOT_FOUND,
        "token-not-found",
    )
    .await;

    // A token may revoke itself; from that answer on it opens nothing.
    let res = revoke(&app, &first, first_id).await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_refused(app.request(Method::GET, "/v1/me", Some(&first), None).await).await;
    assert_eq!(
        rows(&app, "account_tokens").await,
        2,
        "revoked, not deleted"
    );
}

async fn another_accounts_token_is_not_found_and_untouched(app: TestApp) {
    let (_, ann) = create_account(&app, &json!({"name": "Ann"})).await;
    let (bea, bea_secret) = create_account(&app, &json!({"name": "Bea"})).await;
    let beas_token = bea["token"]["id"].as_str().unwrap();
    let theirs = assert_problem(
        revoke(&app, &ann, beas_token).await,
        StatusCode::NOT_FOUND,
        "token-not-found",
    )
    .await;
    let unknown = assert_problem(
        revoke(&app, &ann, "00000000-0000-0000-0000-000000000000").await,
        StatusCode::NOT_FOUND,
        "token-not-found",
    )
    .await;
    // Nothing tells Bea's token apart from one that does not exist.
    assert_eq!(
        theirs["detail"].as_str().unwrap().replace(beas_token, "ID"),
        unknown["detail"]
            .as_str()
            .unwrap()
            .replace("00000000-0000-0000-0000-000000000000", "ID")
    );
    assert_problem(
        revoke(&app, &ann, "not-a-token-id").await,
        StatusCode::NOT_FOUND,
        "token-not-found",
    )
    .await;
    assert_eq!(ids(&me(&app, &bea_secret).await), [beas_token]);
}

async fn seat_tokens_and_account_tokens_each_open_only_their_own_routes(app: TestApp) {
    let (_, account) = create_account(&app, &json!({"name": "Ann"})).await;
    let (id, seats) = app.create_game("girl", 2, None, json!({})).await;

    // A seat token, no token, or a made-up one, on the account's routes: 401 like any other.
    for token in [Some(seats[0].as_str()), None, Some("acct_made-up")] {
        assert_refused(app.request(Method::GET, "/v1/me", token, None).await).await;
        let body = json!({"name": "phone"});
        let res = app
            .request(Method::POST, "/v1/me/tokens", token, Some(&body))
            .await;
        assert_refused(res).await;
    }

    // On a game where the account holds no seat, its token sees what a spectator sees, and
    // cannot move.
    let res = app
        .request(
            Method::GET,
            &format!("/v1/games/{id}"),
            Some(&account),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let seen: Value = res.json().await.unwrap();
    assert_eq!(seen, app.view(&id, None).await);
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/actions"),
            Some(&account),
            Some(&json!({"type": "turn_up"})),
        )
        .await;
    assert_refused(res).await;
    assert_eq!(
        app.view(&id, None).await["version"],
        json!(1),
        "no move made"
    );
}

async fn bad_names_are_refused_and_nothing_is_stored(app: TestApp) {
    let long = "x".repeat(65);
    for (body, field) in [
        (json!({"name": ""}), "name"),
        (json!({"name": " \t "}), "name"),
        (json!({"name": "A\u{7}nn"}), "name"),
        (json!({"name": "A\u{0}nn"}), "name"),
        (json!({"name": long}), "name"),
        (json!({"name": "Ann", "token_name": " "}), "token_name"),
        (
            json!({"name": "Ann", "token_name": "l\naptop"}),
            "token_name",
        ),
    ] {
        let res = app
            .request(Method::POST, "/v1/accounts", None, Some(&body))
            .await;
        let problem = assert_problem(res, StatusCode::BAD_REQUEST, "invalid-text").await;
        assert_eq!(problem["field"], json!(field), "{body}");
    }
    for body in [
        json!({"name": "Ann", "admin": true}),
        json!({"token_name": "laptop"}),
        json!({"name": 7}),
        json!(["Ann"]),
        json!(["Ann", null]),
    ] {
        let res = app
            .request(Method::POST, "/v1/accounts", None, Some(&body))
            .await;
        assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    }
    assert_eq!(rows(&app, "accounts").await, 0);
    assert_eq!(rows(&app, "account_tokens").await, 0);

    let (_, token) = create_account(&app, &json!({"name": "Ann"})).await;
    for body in [
        json!({"name": ""}),
        json!({"name": long}),
        json!({"name": "pho\u{1b}ne"}),
    ] {
        let res = app
            .request(Method::POST, "/v1/me/tokens", Some(&token), Some(&body))
            .await;
        assert_problem(res, StatusCode::BAD_REQUEST, "invalid-text").await;
    }
    let res = app
        .request(
            Method::POST,
            "/v1/me/tokens",
            Some(&token),
            Some(&json!({"name": "phone", "scope": "all"})),
        )
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    assert_eq!(
        me(&app, &token).await["tokens"].as_array().unwrap().len(),
        1
    );
    assert_eq!(rows(&app, "account_tokens").await, 1);
}

async fn a_revocation_through_one_instance_holds_at_once_on_another(a: TestApp) {
    let b = a.restart().await;
    let (created, first) = create_account(&a, &json!({"name": "Ann"})).await;
    let (phone, phone_secret) = mint(&b, &first, "phone").await;
    // Both instances have just accepted the phone's token.
    for instance in [&a, &b] {
        assert_eq!(
            me(instance, &phone_secret).await["account"],
            created["account"]
        );
    }
    let res = revoke(&a, &first, phone["id"].as_str().unwrap()).await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    for instance in [&b, &a] {
        assert_refused(
            instance
                .request(Method::GET, "/v1/me", Some(&phone_secret), None)
                .await,
        )
        .await;
    }
    // And the other way round: a token revoking itself through B is refused by A at once.
    assert_eq!(me(&a, &first).await["tokens"].as_array().unwrap().len(), 1);
    let res = revoke(&b, &first, created["token"]["id"].as_str().unwrap()).await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_refused(a.request(Method::GET, "/v1/me", Some(&first), None).await).await;
}

async fn sign_in(app: &TestApp, code: &str, name: &str) -> Response {
    app.request(
        Method::POST,
        "/v1/accounts/sign-in",
        None,
        Some(&json!({"code": code, "token_name": name})),
    )
    .await
}

async fn a_second_device_signs_in_once_with_a_code_from_the_first(app: TestApp) {
    let (created, phone) = create_account(&app, &json!({"name": "Ann"})).await;
    let res = app
        .request(Method::POST, "/v1/me/sign-in-codes", Some(&phone), None)
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    assert_eq!(
        res.headers()
            .get("cache-control")
            .unwrap()
            .to_str()
            .unwrap(),
        "no-store"
    );
    let issued: Value = res.json().await.unwrap();
    let code = issued["code"].as_str().unwrap().to_string();
    assert!(code.starts_with("signin_"), "{issued}");
    assert_eq!(issued["redeem"], "/v1/accounts/sign-in");
    // Only its hash is kept.
    let sql = "SELECT COUNT(*) FROM sign_in_codes WHERE code_hash = $1";
    let kept: i64 = match app.database_url.starts_with("sqlite") {
        true => {
            let pool = sqlx::SqlitePool::connect(&app.database_url).await.unwrap();
            sqlx::query_scalar(sql)
                .bind(token_hash(&code))
                .fetch_one(&pool)
                .await
                .unwrap()
        }
        false => {
            let pool = sqlx::PgPool::connect(&app.database_url).await.unwrap();
            sqlx::query_scalar(sql)
                .bind(token_hash(&code))
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    assert_eq!(kept, 1);

    let res = sign_in(&app, &code, "laptop").await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let signed_in: Value = res.json().await.unwrap();
    assert_eq!(signed_in["account"]["id"], created["account"]["id"]);
    let laptop = signed_in["token"]["secret"].as_str().unwrap().to_string();
    let listed = me(&app, &laptop).await;
    assert_eq!(listed["account"]["id"], created["account"]["id"]);
    assert_eq!(listed["tokens"].as_array().unwrap().len(), 2);
    assert_eq!(
        listed["tokens"][1]["signed_in_with"], "code",
        "the account page says how each device got in"
    );

    // Once only, and nothing else opens anything.
    assert_refused(sign_in(&app, &code, "tablet").await).await;
    assert_refused(sign_in(&app, "signin_000000000000000000000000", "tablet").await).await;
    assert_refused(sign_in(&app, &phone, "tablet").await).await;
    assert_eq!(
        me(&app, &phone).await["tokens"].as_array().unwrap().len(),
        2
    );

    // A code dies with the token that asked for it.
    let res = app
        .request(Method::POST, "/v1/me/sign-in-codes", Some(&phone), None)
        .await;
    let orphan = res.json::<Value>().await.unwrap()["code"]
        .as_str()
        .unwrap()
        .to_string();
    let phone_id = me(&app, &phone).await["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["current"] == true)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        revoke(&app, &laptop, &phone_id).await.status(),
        StatusCode::NO_CONTENT
    );
    assert_refused(sign_in(&app, &orphan, "tablet").await).await;
    // And a bad name is refused before the code is used.
    let res = app
        .request(Method::POST, "/v1/me/sign-in-codes", Some(&laptop), None)
        .await;
    let fresh = res.json::<Value>().await.unwrap()["code"]
        .as_str()
        .unwrap()
        .to_string();
    let res = sign_in(&app, &fresh, "").await;
    assert_problem(res, StatusCode::BAD_REQUEST, "invalid-text").await;
    assert_eq!(
        sign_in(&app, &fresh, "tablet").await.status(),
        StatusCode::CREATED
    );
}

on_both_backends!(
    a_second_device_signs_in_once_with_a_code_from_the_first,
    an_account_is_created_with_a_first_token_shown_once_and_kept_as_a_hash,
    each_minted_token_opens_the_account_and_is_listed_without_its_secret,
    a_revoked_token_is_refused_at_once_and_can_neither_mint_nor_revoke,
    another_accounts_token_is_not_found_and_untouched,
    seat_tokens_and_account_tokens_each_open_only_their_own_routes,
    bad_names_are_refused_and_nothing_is_stored,
    a_revocation_through_one_instance_holds_at_once_on_another,
);
