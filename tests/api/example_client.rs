//! The README's example client (`tools/play.py`) plays every game to the end, as shown.

use std::process::Command;

use crate::helpers::{spawn_app, Backend};

// Two workers: the client is a blocking child process, and the server must answer meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_client_plays_every_game_to_a_clean_audit() {
    let app = spawn_app(Backend::Sqlite).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tools/play.py");
    for game in [
        "girl",
        "car",
        "british-birds",
        "history-of-england",
        "googly",
    ] {
        let run = Command::new("python3")
            .args([script, "--server", &app.address, "--game", game])
            .output()
            .expect("python3 runs");
        let printed = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "{game}: {printed}{}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(printed.contains("audit: clean"), "{game}: {printed}");
    }
}
