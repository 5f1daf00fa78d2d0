//! `parlour`: serves the API.

use clap::{Parser, Subcommand};
use parlour::startup::Application;

/// Parlour: a game server for five classic British card games.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    /// Address to listen on.
    #[arg(long, env = "PARLOUR_ADDR", default_value = "127.0.0.1:8080")]
    addr: String,
    /// Where games are stored: postgres://… (production) or sqlite://… (embedded).
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://parlour.db")]
    database_url: String,
    /// File holding the receipt signing key (the 32-byte Ed25519 seed as 64 hex digits); created
    /// with a fresh key, readable by its owner only, if it does not exist. Give every instance
    /// the same file, and keep it secret.
    #[arg(
        long,
        env = "PARLOUR_SIGNING_KEY_FILE",
        default_value = "parlour-signing.key"
    )]
    signing_key_file: std::path::PathBuf,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the API (the default).
    Serve,
    /// Print the OpenAPI document.
    Openapi,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    parlour::telemetry::init();
    match cli.command.unwrap_or(Command::Serve) {
        Command::Openapi => match serde_json::to_string_pretty(&parlour::openapi::spec()) {
            Ok(text) => {
                println!("{text}");
                std::process::ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("cannot write the OpenAPI document: {e}");
                std::process::ExitCode::FAILURE
            }
        },
        Command::Serve => {
            let app = match Application::build(&cli.addr, &cli.database_url, &cli.signing_key_file)
                .await
            {
                Ok(app) => app,
                Err(e) => {
                    tracing::error!("{e}");
                    return std::process::ExitCode::FAILURE;
                }
            };
            tracing::info!(addr = %cli.addr, "parlour is serving; API docs at /docs");
            match app.run_until_stopped().await {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(e) => {
                    tracing::error!("server stopped: {e}");
                    std::process::ExitCode::FAILURE
                }
            }
        }
    }
}
