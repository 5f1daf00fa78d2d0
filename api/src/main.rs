//! `parlour`: serves the API.

use std::time::Duration;

use clap::builder::BoolishValueParser;
use clap::{Parser, Subcommand};
use parlour::http::cors::CorsSettings;
use parlour::http::rate_limit::{self, AddressRange, Quota, RateLimitSettings};
use parlour::limits::StreamLimits;
use parlour::service::commit::GroupCommitSettings;
use parlour::service::webhooks::WebhookSettings;
use parlour::service::CacheSettings;
use parlour::startup::{Application, EmailConfig, Sandbox, Settings};
use parlour::store::DbSettings;
use parlour::telemetry::LogFormat;

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
    /// Seconds a request waits for a database connection before answering 503.
    #[arg(long, env = "PARLOUR_DB_ACQUIRE_TIMEOUT", default_value = "2", value_parser = seconds)]
    db_acquire_timeout: Duration,
    /// Seconds one database statement may run (Postgres `statement_timeout`, SQLite busy
    /// timeout); a store call is abandoned with 503 after this plus the acquire timeout.
    #[arg(long, env = "PARLOUR_DB_TIMEOUT", default_value = "5", value_parser = seconds)]
    db_timeout: Duration,
    /// Connections this instance may hold to Postgres at once: its share of the server's
    /// `max_connections`, which every instance (and psql, and backups) draws on.
    #[arg(long, env = "PARLOUR_DB_CONNECTIONS", default_value_t = DbSettings::DEFAULT_MAX_CONNECTIONS,
          value_parser = clap::value_parser!(u32).range(1..))]
    db_connections: u32,
    /// Event streams (`/stream`) one seat token may hold open at once.
    #[arg(long, env = "PARLOUR_MAX_STREAMS_PER_TOKEN", default_value_t = StreamLimits::DEFAULT_PER_TOKEN)]
    max_streams_per_token: usize,
    /// Event streams one client IP address may hold open at once.
    #[arg(long, env = "PARLOUR_MAX_STREAMS_PER_CLIENT", default_value_t = StreamLimits::DEFAULT_PER_CLIENT)]
    max_streams_per_client: usize,
    /// Event streams the server holds open in all (lowered to fit the open-file limit).
    #[arg(long, env = "PARLOUR_MAX_STREAMS", default_value_t = StreamLimits::DEFAULT_TOTAL)]
    max_streams: usize,
    /// An origin browser apps may call the API from (`https://app.example.com`); repeat it for
    /// several, `*` for any (without credentials), `none` for no cross-origin access.
    #[arg(
        long = "cors-allow-origin",
        env = "PARLOUR_CORS_ALLOW_ORIGINS",
        value_delimiter = ',',
        default_value = "*"
    )]
    cors_allow_origins: Vec<String>,
    /// Allow CORS credentials mode (cookies) for the listed origins; Parlour itself needs none,
    /// and it cannot be used with `*`.
    #[arg(long, env = "PARLOUR_CORS_ALLOW_CREDENTIALS", value_parser = BoolishValueParser::new())]
    cors_allow_credentials: bool,
    /// Requests a minute one seat token may send (a burst of that many at once); 0: no limit.
    #[arg(long, env = "PARLOUR_RATE_LIMIT_PER_TOKEN", default_value_t = rate_limit::DEFAULT_PER_TOKEN)]
    rate_limit_per_token: u32,
    /// Requests a minute one client address (an IPv6 /64) may send; 0: no limit.
    #[arg(long, env = "PARLOUR_RATE_LIMIT_PER_CLIENT", default_value_t = rate_limit::DEFAULT_PER_CLIENT)]
    rate_limit_per_client: u32,
    /// Sign-in attempts a minute one client address may make (a sign-in code redeemed, a
    /// passkey ceremony begun or finished), besides its requests; 0: no limit beyond those.
    #[arg(long, env = "PARLOUR_SIGN_INS_PER_MINUTE", default_value_t = rate_limit::DEFAULT_SIGN_INS_PER_CLIENT)]
    sign_ins_per_minute: u32,
    /// No rate limits at all (benchmarks).
    #[arg(long, env = "PARLOUR_NO_RATE_LIMIT", value_parser = BoolishValueParser::new())]
    no_rate_limit: bool,
    /// A proxy (ADDRESS or ADDRESS/PREFIX) whose `X-Forwarded-For` names the client for the
    /// rate limits; repeat it for several. None by default: the client is the peer address.
    #[arg(
        long = "trusted-proxy",
        env = "PARLOUR_TRUSTED_PROXIES",
        value_delimiter = ','
    )]
    trusted_proxies: Vec<AddressRange>,
    /// How log lines are written: `text` (coloured only on a terminal) or `json` (one object a
    /// line). `RUST_LOG` sets the level.
    #[arg(long, env = "PARLOUR_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// Refuse (428) every move that does not carry `If-Match` with the version it was decided
    /// from.
    #[arg(long, env = "PARLOUR_REQUIRE_PRECONDITIONS")]
    require_preconditions: bool,
    /// Seconds an `Idempotency-Key` is remembered after its move; after that the same key is a
    /// new request.
    #[arg(long, env = "PARLOUR_IDEMPOTENCY_KEY_LIFETIME", default_value = "86400", value_parser = seconds)]
    idempotency_key_lifetime: Duration,
    /// The least time, in milliseconds, a bot takes over a move: its thinking time must not
    /// tell its opponents about its hand (`docs/bots.md`).
    #[arg(long, env = "PARLOUR_BOT_PACE_MS", default_value = "1000", value_parser = milliseconds)]
    bot_pace: Duration,
    /// Vacation days each account has a calendar year.
    #[arg(long, env = "PARLOUR_VACATION_DAYS", default_value_t = parlour::service::DEFAULT_VACATION_DAYS)]
    vacation_days: u32,
    /// Let webhooks be sent to loopback, private and link-local addresses (receivers on the
    /// operator's own network, and tests); off, such URLs are refused.
    #[arg(long, env = "PARLOUR_WEBHOOKS_ALLOW_PRIVATE", value_parser = BoolishValueParser::new())]
    webhooks_allow_private: bool,
    /// The operator's contact, a `mailto:` or `https:` URL, named to browsers' push services
    /// in every push (RFC 8292 `sub`): they write to it if the server's pushes misbehave, and
    /// some refuse pushes without a real one.
    #[arg(long, env = "PARLOUR_PUSH_CONTACT", default_value = parlour::service::DEFAULT_PUSH_CONTACT,
          value_parser = push_contact)]
    push_contact: String,
    /// The mail server notices are mailed through: `smtp://host:port` (plain, for a relay on
    /// the same host), `smtp://host?tls=required` (STARTTLS), `smtps://host` (TLS), with
    /// `user:password@` if it asks. Unset, the server keeps no addresses and sends no mail.
    #[arg(long, env = "PARLOUR_SMTP_URL", hide_env_values = true)]
    smtp_url: Option<String>,
    /// Whom mails come from.
    #[arg(long, env = "PARLOUR_MAIL_FROM", default_value = parlour::startup::DEFAULT_MAIL_FROM)]
    mail_from: String,
    /// The server as players reach it (`https://parlour.example.org`), for the links in
    /// mails; unset, `http://127.0.0.1:<port>`.
    #[arg(long, env = "PARLOUR_PUBLIC_URL", value_parser = public_url)]
    public_url: Option<String>,
    /// The most mails an account's addresses are sent in an hour; more wait their turn and
    /// go together.
    #[arg(long, env = "PARLOUR_MAILS_PER_HOUR", default_value_t = parlour::service::email::DEFAULT_MAILS_PER_HOUR,
          value_parser = clap::value_parser!(u32).range(1..))]
    mails_per_hour: u32,
    /// Seconds a webhook receiver has to answer.
    #[arg(long, env = "PARLOUR_WEBHOOK_TIMEOUT", default_value = "15", value_parser = seconds)]
    webhook_timeout: Duration,
    /// How many groups of moves may be committed at once (`docs/performance.md`, group
    /// commit); unset, the database's default: 2 on Postgres, 1 on SQLite.
    #[arg(long, env = "PARLOUR_COMMIT_WRITERS", value_parser = clap::value_parser!(u32).range(1..=64))]
    commit_writers: Option<u32>,
    /// The most moves one commit may hold; 1 commits every move on its own.
    #[arg(long, env = "PARLOUR_COMMIT_GROUP", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=1024))]
    commit_group: u32,
    /// MiB the games held in memory may take, by the server's estimate of each
    /// (`docs/operations.md`, "Memory"); the least recently used are dropped past it.
    #[arg(long, env = "PARLOUR_CACHE_BUDGET_MB", default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..))]
    cache_budget_mb: u32,
    /// Entries a long game's log (GOOGLY) grows between two snapshots of its table; 0 turns
    /// snapshots off, written and read.
    #[arg(long, env = "PARLOUR_SNAPSHOT_EVERY", default_value_t = parlour::service::DEFAULT_SNAPSHOT_EVERY)]
    snapshot_every: u64,
    /// Sandbox mode, for apps' tests: accounts may create games on a test clock and move it
    /// on (`docs/sandbox.md`). Never on a server people play on; refused with Postgres
    /// unless `--sandbox-on-postgres` says the database is a test one.
    #[arg(long, env = "PARLOUR_SANDBOX", value_parser = BoolishValueParser::new())]
    sandbox: bool,
    /// With `--sandbox`: the Postgres database is a test one, so test clocks may be used on it.
    #[arg(long, env = "PARLOUR_SANDBOX_ON_POSTGRES", value_parser = BoolishValueParser::new())]
    sandbox_on_postgres: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the API (the default).
    Serve,
    /// Print the OpenAPI document.
    Openapi,
    /// Exit 0 if the server at `--addr` answers `/readyz` with 200, else 1 (a container's
    /// HEALTHCHECK).
    Healthcheck,
    /// Declare abandoned every game with no move clock that has had no move for `--days`
    /// days (games are never abandoned otherwise), printing each one's id.
    AbandonIdle {
        /// Days without an entry in a game's log that make it idle.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        days: u32,
        /// Only list the games that would be abandoned.
        #[arg(long)]
        dry_run: bool,
    },
}

/// A positive number of seconds, fractions allowed (`0.5`).
fn seconds(text: &str) -> Result<Duration, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if value.is_nan() || value <= 0.0 {
        return Err("the timeout must be more than 0 seconds".into());
    }
    Duration::try_from_secs_f64(value).map_err(|e| e.to_string())
}

/// A whole number of milliseconds, zero included.
fn milliseconds(text: &str) -> Result<Duration, String> {
    text.parse::<u64>()
        .map(Duration::from_millis)
        .map_err(|_| format!("{text:?} is not a whole number of milliseconds"))
}

impl Cli {
    fn settings(&self) -> Result<Settings, String> {
        let cors = CorsSettings::parse(&self.cors_allow_origins, self.cors_allow_credentials)
            .map_err(|e| e.to_string())?;
        let rate_limits = if self.no_rate_limit {
            RateLimitSettings::off()
        } else {
            RateLimitSettings {
                per_token: Quota::per_minute(self.rate_limit_per_token),
                per_client: Quota::per_minute(self.rate_limit_per_client),
                sign_ins: Quota::per_minute(self.sign_ins_per_minute),
                trusted_proxies: self.trusted_proxies.clone(),
                ..RateLimitSettings::default()
            }
        };
        Ok(Settings {
            db: DbSettings {
                acquire_timeout: self.db_acquire_timeout,
                statement_timeout: self.db_timeout,
                max_connections: self.db_connections,
            },
            streams: StreamLimits {
                per_token: self.max_streams_per_token,
                per_client: self.max_streams_per_client,
                total: self.max_streams,
            },
            cors,
            rate_limits,
            require_preconditions: self.require_preconditions,
            vacation_days_per_year: self.vacation_days,
            bot_pace: self.bot_pace,
            group_commit: GroupCommitSettings {
                writers: self.commit_writers.and_then(|n| usize::try_from(n).ok()),
                max_group: usize::try_from(self.commit_group).unwrap_or(64),
            },
            idempotency_key_lifetime: self.idempotency_key_lifetime,
            cache: CacheSettings {
                budget_bytes: usize::try_from(u64::from(self.cache_budget_mb) * 1024 * 1024)
                    .unwrap_or(usize::MAX),
                snapshot_every: self.snapshot_every,
            },
            push_contact: self.push_contact.clone(),
            sandbox: match (self.sandbox, self.sandbox_on_postgres) {
                (false, _) => Sandbox::Off,
                (true, false) => Sandbox::On,
                (true, true) => Sandbox::OnPostgres,
            },
            email: EmailConfig {
                smtp_url: self.smtp_url.clone(),
                from: self.mail_from.clone(),
                public_url: self.public_url.clone(),
                per_hour: self.mails_per_hour,
            },
            webhooks: WebhookSettings {
                allow_private: self.webhooks_allow_private,
                timeout: self.webhook_timeout,
                ..WebhookSettings::default()
            },
            ..Settings::default()
        })
    }
}

/// The server's public URL: `http` or `https`, no path beyond `/`, no query.
fn public_url(text: &str) -> Result<String, String> {
    match url::Url::parse(text) {
        Ok(url)
            if matches!(url.scheme(), "http" | "https")
                && url.query().is_none()
                && url.path() == "/" =>
        {
            Ok(text.trim_end_matches('/').to_string())
        }
        _ => Err("an http: or https: URL with no path, such as https://parlour.example.org".into()),
    }
}

/// A push contact: a `mailto:` or `https:` URL (RFC 8292 §2.1).
fn push_contact(text: &str) -> Result<String, String> {
    match url::Url::parse(text) {
        Ok(url) if matches!(url.scheme(), "mailto" | "https") => Ok(text.to_string()),
        _ => Err("a mailto: or https: URL, such as mailto:ops@example.org".to_string()),
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    parlour::telemetry::init_with(cli.log_format);
    let settings = match cli.settings() {
        Ok(settings) => settings,
        Err(e) => {
            tracing::error!("{e}");
            return std::process::ExitCode::FAILURE;
        }
    };
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
        Command::Healthcheck => {
            let address = parlour::probe::local_address(&cli.addr);
            match parlour::probe::ready(&address).await {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("{e}");
                    std::process::ExitCode::FAILURE
                }
            }
        }
        Command::AbandonIdle { days, dry_run } => {
            abandon_idle(&cli.database_url, &settings, days, dry_run).await
        }
        Command::Serve => {
            let app = match Application::build_with(
                &cli.addr,
                &cli.database_url,
                &cli.signing_key_file,
                settings,
            )
            .await
            {
                Ok(app) => app,
                Err(e) => {
                    tracing::error!("{e}");
                    return std::process::ExitCode::FAILURE;
                }
            };
            tracing::info!(addr = %cli.addr, "parlour is serving; play at /play, API docs at /docs");
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

/// `parlour abandon-idle`: the operator's explicit sweep of idle, unclocked games.
async fn abandon_idle(
    database_url: &str,
    settings: &Settings,
    days: u32,
    dry_run: bool,
) -> std::process::ExitCode {
    let store = match parlour::store::connect_with(database_url, &settings.db).await {
        Ok(store) => store,
        Err(e) => {
            eprintln!("cannot open the store: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    // Table events carry no receipt, so no signing key is needed.
    let signer = match parlour::receipts::Signer::generate() {
        Ok(signer) => std::sync::Arc::new(signer),
        Err(e) => {
            eprintln!("{e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let service = parlour::service::Parlour::new(store, signer);
    let idle = Duration::from_secs(u64::from(days) * 24 * 60 * 60);
    match service.abandon_idle(idle, dry_run).await {
        Ok(sweep) => {
            for id in &sweep.abandoned {
                println!("{id}");
            }
            let verb = if dry_run { "would be" } else { "were" };
            eprintln!(
                "{} idle game(s) {verb} declared abandoned; {} idle game(s) left alone (over, or on a clock)",
                sweep.abandoned.len(),
                sweep.left
            );
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::ExitCode::FAILURE
        }
    }
}
