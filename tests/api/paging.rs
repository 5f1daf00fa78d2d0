//! One way to page every list (`routes::paging`): `cursor` and `limit` in, `next` and a
//! `Link: rel="next"` out. The document's side is checked for every list by
//! `contract::every_list_that_grows_is_paged_the_same_way`; here the server's: following the
//! links gives every item once, in order, and the inbox keeps the games being played apart
//! from the history.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::new_account as account;
use crate::helpers::{assert_problem, TestApp};
use crate::on_both_backends;

/// Ann hosts a two-seat GIRL game; Bea takes the other seat, so it is active. Its id.
async fn active_game(app: &TestApp, ann: &str, bea: &str) -> String {
    let (status, hosted) = app
        .post(
            "/v1/me/games",
            Some(ann),
            &json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hosted}");
    let id = hosted["id"].as_str().unwrap().to_string();
    let (status, _) = app
        .post(
            &format!("/v1/games/{id}/seats/1/claim"),
            Some(bea),
            &json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    id
}

/// Follows `path`'s `Link: rel="next"` headers to the end: every page's body.
pub(crate) async fn every_page(app: &TestApp, path: &str, token: Option<&str>) -> Vec<Value> {
    let mut pages = Vec::new();
    let mut next = Some(path.to_string());
    while let Some(path) = next.take() {
        assert!(pages.len() < 100, "the links never end");
        let res = app.request(Method::GET, &path, token, None).await;
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        let link = res
            .headers()
            .get("link")
            .map(|value| value.to_str().unwrap().to_string());
        let page: Value = res.json().await.unwrap();
        // The header and the field say the same: a next page, or none.
        match (&link, page["next"].as_str()) {
            (Some(link), Some(cursor)) => {
                let target = link
                    .strip_prefix('<')
                    .and_then(|rest| rest.split_once(">; rel=\"next\""))
                    .map(|(target, _)| target.to_string())
                    .expect("a next link");
                let encoded: String =
                    url::form_urlencoded::byte_serialize(cursor.as_bytes()).collect();
                assert!(target.contains(&format!("cursor={encoded}")), "{target}");
                next = Some(target);
            }
            (None, None) => {}
            other => panic!("the Link header and `next` disagree: {other:?}"),
        }
        pages.push(page);
    }
    pages
}

fn ids(rows: &[Value]) -> Vec<String> {
    rows.iter()
        .map(|row| row["id"].as_str().unwrap().to_string())
        .collect()
}

async fn the_inbox_lists_live_games_whole_and_pages_the_finished_newest_first(app: TestApp) {
    let ann = account(&app, "Ann").await;
    let bea = account(&app, "Bea").await;
    let mut games = Vec::new();
    for _ in 0..5 {
        games.push(active_game(&app, &ann, &bea).await);
    }
    // Three of them end: Ann resigns the first, third and fifth.
    for id in [&games[0], &games[2], &games[4]] {
        let (status, _) = app
            .post(&format!("/v1/games/{id}/resign"), Some(&ann), &json!({}))
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    let mut finished = vec![games[4].clone(), games[2].clone(), games[0].clone()];
    finished.sort();
    finished.reverse();

    // The first page: both live games, then the newest finished ones, `limit` of them.
    let pages = every_page(&app, "/v1/me/games?limit=2", Some(&ann)).await;
    assert_eq!(pages.len(), 2);
    let first = pages[0]["games"].as_array().unwrap();
    let live: Vec<&Value> = first.iter().filter(|r| r["status"] != "finished").collect();
    assert_eq!(live.len(), 2, "the live games, whole");
    let history: Vec<Value> = pages
        .iter()
        .flat_map(|page| page["games"].as_array().unwrap().clone())
        .filter(|r| r["status"] == "finished")
        .collect();
    assert_eq!(
        ids(&history),
        finished,
        "every finished game once, newest first"
    );
    // Later pages hold finished games only.
    assert!(pages[1]["games"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["status"] == "finished"));

    // The history alone, a game a page; the live games alone, whole.
    let pages = every_page(&app, "/v1/me/games?status=finished&limit=1", Some(&ann)).await;
    assert_eq!(pages.len(), 3);
    let rows: Vec<Value> = pages
        .iter()
        .flat_map(|page| page["games"].as_array().unwrap().clone())
        .collect();
    assert_eq!(ids(&rows), finished);
    let (_, active) = app
        .get("/v1/me/games?status=active&limit=1", Some(&ann))
        .await;
    assert_eq!(active["games"].as_array().unwrap().len(), 2);
    assert_eq!(active["next"], Value::Null);

    // A game whose end was not noted (a crash between its commit and the note) is found over
    // by the live part and moves to the history, once.
    sqlx_unmark(&app, &games[2]).await;
    let pages = every_page(&app, "/v1/me/games?limit=10", Some(&ann)).await;
    let rows: Vec<Value> = pages
        .iter()
        .flat_map(|page| page["games"].as_array().unwrap().clone())
        .collect();
    assert_eq!(rows.len(), 5, "{rows:?}");
    let pages = every_page(&app, "/v1/me/games?status=finished", Some(&ann)).await;
    assert_eq!(ids(pages[0]["games"].as_array().unwrap()), finished);

    // The notices are a feed: a page of `limit`, whose `next` (and Link) reads on from its
    // last notice, so the next page starts with the one after.
    let first = app
        .request(
            Method::GET,
            "/v1/me/notices?cursor=0-0&limit=1",
            Some(&ann),
            None,
        )
        .await;
    let link = first
        .headers()
        .get("link")
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let first: Value = first.json().await.unwrap();
    assert_eq!(first["notices"].as_array().unwrap().len(), 1, "{first}");
    assert_eq!(first["next"], first["notices"][0]["id"]);
    assert!(
        link.contains(&format!("cursor={}", first["next"].as_str().unwrap())),
        "{link}"
    );
    let target = &link[1..link.find('>').unwrap()];
    let (_, second) = app.get(target, Some(&ann)).await;
    assert_eq!(second["notices"].as_array().unwrap().len(), 1, "{second}");
    assert_ne!(second["notices"][0]["id"], first["notices"][0]["id"]);

    // Bad paging is refused.
    for path in [
        "/v1/me/games?limit=0",
        "/v1/me/games?limit=101",
        "/v1/me/games?cursor=not-a-game",
    ] {
        let res = app.request(Method::GET, path, Some(&ann), None).await;
        assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    }
}

/// Forgets that game `id` ended, as a crash after its commit would.
async fn sqlx_unmark(app: &TestApp, id: &str) {
    let sql = "UPDATE account_games SET finished_at = NULL WHERE game_id = ";
    if app.database_url.starts_with("postgres") {
        let pool = sqlx::PgPool::connect(&app.database_url).await.unwrap();
        sqlx::query(&format!("{sql}$1::uuid"))
            .bind(id)
            .execute(&pool)
            .await
            .unwrap();
    } else {
        let pool = sqlx::SqlitePool::connect(&app.database_url).await.unwrap();
        sqlx::query(&format!("{sql}?1"))
            .bind(id)
            .execute(&pool)
            .await
            .unwrap();
    }
}

async fn following_the_links_reads_a_log_and_the_checkpoints_whole(app: TestApp) {
    let ann = account(&app, "Ann").await;
    let bea = account(&app, "Bea").await;
    let id = active_game(&app, &ann, &bea).await;
    let (status, _) = app
        .post(&format!("/v1/games/{id}/resign"), Some(&bea), &json!({}))
        .await;
    assert_eq!(status, StatusCode::OK);
    let whole = app.all_events(&id, None).await;
    let pages = every_page(&app, &format!("/v1/games/{id}/events?limit=2"), None).await;
    assert!(pages.len() >= 2);
    let paged: Vec<Value> = pages
        .iter()
        .flat_map(|page| page["events"].as_array().unwrap().clone())
        .collect();
    assert_eq!(paged, whole);
    // The older name still works, and means the same.
    let (_, by_after) = app
        .get(&format!("/v1/games/{id}/events?after=2&limit=2"), None)
        .await;
    let (_, by_cursor) = app
        .get(&format!("/v1/games/{id}/events?cursor=2&limit=2"), None)
        .await;
    assert_eq!(by_after, by_cursor);
    // Both sent: `cursor` is followed.
    let (_, both) = app
        .get(
            &format!("/v1/games/{id}/events?cursor=2&after=3&limit=2"),
            None,
        )
        .await;
    assert_eq!(both, by_cursor);

    // The checkpoints: one per finished game, a page at a time.
    let other = active_game(&app, &ann, &bea).await;
    let (status, _) = app
        .post(&format!("/v1/games/{other}/resign"), Some(&bea), &json!({}))
        .await;
    assert_eq!(status, StatusCode::OK);
    let pages = every_page(&app, "/v1/checkpoints?limit=1", None).await;
    let listed: Vec<Value> = pages
        .iter()
        .flat_map(|page| page["checkpoints"].as_array().unwrap().clone())
        .collect();
    assert_eq!(listed.len(), 2, "{pages:?}");
}

on_both_backends!(
    the_inbox_lists_live_games_whole_and_pages_the_finished_newest_first,
    following_the_links_reads_a_log_and_the_checkpoints_whole,
);
