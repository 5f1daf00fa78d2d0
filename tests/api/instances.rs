//! Several instances on one database: none serves or decides from a stale table.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;

use parlour_domain::playout::instantiate;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

use crate::helpers::TestApp;
use crate::on_both_backends;

/// The new user's story from issue 9: a game created through A, viewed through B, moved
/// through A, then viewed, long-polled, streamed and moved through B.
async fn a_second_instance_never_serves_or_decides_from_a_stale_table(a: TestApp) {
    let b = a.restart().await;
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let (id, tokens) = a.create_game("girl", 2, None, json!({})).await;
    let first = b.view(&id, Some(&tokens[1])).await; // B caches the game
    let version = first["version"].as_u64().unwrap();
    let to_act = first["to_act"][0].as_u64().unwrap() as usize;
    assert_eq!(
        a.act(&id, &tokens[to_act], &json!({"type": "turn_up"}))
            .await
            .0,
        StatusCode::OK
    );
    let after = a.view(&id, None).await;
    let moved = after["version"].as_u64().unwrap();
    assert!(moved > version);

    // B shows the move at once.
    assert_eq!(b.view(&id, None).await["version"], json!(moved));
    assert_eq!(b.all_events(&id, None).await.len() as u64, moved);

    // A long-poll on B that knows only the old version answers with the new one.
    let res = b
        .client
        .get(format!("{}/v1/games/{id}?wait=5", b.address))
        .header("If-None-Match", format!("\"{version}\""))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);

    // Keep moving through B, with If-Match at the version A left: B decides from the log's
    // end, not from what it cached.
    let mut current = moved;
    for _ in 0..6 {
        let public = a.view(&id, None).await;
        if public["status"] == json!("finished") {
            break;
        }
        let seat = public["to_act"][0].as_u64().unwrap() as usize;
        let mine = a.view(&id, Some(&tokens[seat])).await;
        let action = instantiate(&mine["legal_actions"][0], &mut rng);
        let res = b
            .client
            .post(format!("{}/v1/games/{id}/actions", b.address))
            .bearer_auth(&tokens[seat])
            .header("If-Match", format!("\"{current}\""))
            .json(&action)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{action}");
        // ... and A, which cached the game before B's move, answers with B's move too.
        current = a.view(&id, None).await["version"].as_u64().unwrap();
        assert_eq!(b.view(&id, None).await["version"], json!(current));
        // The next move goes through A again, so each instance is stale in turn.
        let public = b.view(&id, None).await;
        if public["status"] == json!("finished") {
            break;
        }
        let seat = public["to_act"][0].as_u64().unwrap() as usize;
        let mine = b.view(&id, Some(&tokens[seat])).await;
        let action = instantiate(&mine["legal_actions"][0], &mut rng);
        let (status, view) = a.act(&id, &tokens[seat], &action).await;
        assert_eq!(status, StatusCode::OK, "{view}");
        current = view["version"].as_u64().unwrap();
    }

    // A stream opened on B is told of a move made through A.
    let mut stream = b
        .client
        .get(format!("{}/v1/games/{id}/stream", b.address))
        .bearer_auth(&tokens[0])
        .send()
        .await
        .unwrap();
    let first_chunk = stream.chunk().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first_chunk).contains(&format!("id: {current}")));
    let public = a.view(&id, None).await;
    if public["status"] != json!("finished") {
        let seat = public["to_act"][0].as_u64().unwrap() as usize;
        let mine = a.view(&id, Some(&tokens[seat])).await;
        let action = instantiate(&mine["legal_actions"][0], &mut rng);
        let (status, view) = a.act(&id, &tokens[seat], &action).await;
        assert_eq!(status, StatusCode::OK, "{view}");
        let next = view["version"].as_u64().unwrap();
        let told = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                let chunk = stream.chunk().await.unwrap().unwrap();
                if String::from_utf8_lossy(&chunk).contains(&format!("id: {next}")) {
                    return;
                }
            }
        })
        .await;
        assert!(told.is_ok(), "the stream on B was not told of A's move");
    }
    let (_, audit) = b.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(audit["chain_ok"], json!(true), "{audit}");
    assert_eq!(audit["replay_ok"], json!(true), "{audit}");
}

on_both_backends!(a_second_instance_never_serves_or_decides_from_a_stale_table);
