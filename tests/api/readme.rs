//! The README's walk-through is true: its bodies are accepted as written, in its order, and
//! the answers it shows are what the server answers.

use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{spawn_app, Backend};

/// One `curl -X POST …` of the README: whose token it uses (none for create) and its body.
struct Post {
    token: Option<String>,
    body: Value,
}

/// The POSTs of the README's curl walk-through, in order.
fn readme_posts() -> Vec<Post> {
    let readme = include_str!("../../README.md");
    let mut posts = Vec::new();
    for command in readme.split("curl -s -X POST").skip(1) {
        let command = command.split("```").next().unwrap();
        let token = ["ANN", "BEA"]
            .into_iter()
            .find(|name| command.contains(&format!("Bearer ${name}")))
            .map(str::to_string);
        let body = command
            .split("-d '")
            .nth(1)
            .unwrap()
            .split('\'')
            .next()
            .unwrap();
        posts.push(Post {
            token,
            body: serde_json::from_str(body).expect("the README's body is JSON"),
        });
    }
    posts
}

/// The JSON block the README shows right after the command that contains `marker`.
fn shown_after(marker: &str) -> Value {
    let readme = include_str!("../../README.md");
    let after = readme.split(marker).nth(1).expect("marker in README");
    let block = after
        .split("```json\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    serde_json::from_str(block).expect("the README's answer is JSON")
}

#[tokio::test]
async fn the_readme_walk_through_plays_as_written() {
    let app = spawn_app(Backend::Sqlite).await;
    let posts = readme_posts();
    assert_eq!(posts.len(), 4, "create, turn up, and two lays");

    let (status, created) = app.post("/v1/games", None, &posts[0].body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap();
    let token = |name: &str| {
        let seat = if name == "ANN" { 0 } else { 1 };
        created["seats"][seat]["token"]
            .as_str()
            .unwrap()
            .to_string()
    };

    let ann = app.view(id, Some(&token("ANN"))).await;
    let shown = shown_after("| jq '{to_act, you, legal_actions}'");
    assert_eq!(ann["to_act"], shown["to_act"]);
    assert_eq!(ann["you"], shown["you"]);
    assert_eq!(ann["legal_actions"], shown["legal_actions"]);

    let mut answers = Vec::new();
    for post in &posts[1..] {
        let seat_token = token(post.token.as_deref().expect("a move carries a token"));
        let (status, answer) = app.act(id, &seat_token, &post.body).await;
        assert_eq!(status, StatusCode::OK, "{}: {answer}", post.body);
        answers.push(answer);
        if answers.len() == 2 {
            // Between Ann's lay and Bea's: Bea's copy of the log.
            let (_, page) = app
                .get(&format!("/v1/games/{id}/events"), Some(&token("BEA")))
                .await;
            let last = page["events"].as_array().unwrap().last().unwrap().clone();
            let shown = shown_after("jq -c '.events[-1] | {seq, type, actor, data}'");
            for field in ["seq", "type", "actor", "data"] {
                assert_eq!(last[field], shown[field], "{field}");
            }
        }
    }
    let shown = shown_after("| jq '{to_act, exposed: .public.exposed}'");
    assert_eq!(answers[0]["to_act"], shown["to_act"]);
    assert_eq!(answers[0]["public"]["exposed"], shown["exposed"]);
    assert_eq!(
        answers[2]["public"]["last_trick"],
        shown_after("| jq -c .public.last_trick")
    );
}
