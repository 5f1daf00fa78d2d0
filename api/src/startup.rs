//! Builds the HTTP application around the service.

use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;
use utoipa_actix_web::AppExt;

use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use tracing_actix_web::TracingLogger;

use crate::bus::{Bus, BusSettings};
use crate::error::{ApiError, Problem};
use crate::http::cors::{self, CorsSettings};
use crate::http::head;
use crate::http::metrics::Metrics;
use crate::http::rate_limit::{self, RateLimitSettings, RateLimiter};
use crate::http::trace;
use crate::limits::{self, StreamGate, StreamLimits};
use crate::mail::{MailSetupError, Mailer};
use crate::receipts::{KeyError, Signer};
use crate::routes;
use crate::service::webhooks::{WebhookCommits, WebhookSettings};
use crate::service::{AfterCommit, Clock, Parlour};
use crate::service::{EmailSettings, RelyingParty};
use crate::store::{self, DbSettings, EventStore, StoreError};
use crate::telemetry::RequestSpan;
use crate::workers::bots::BotPlayer;
use crate::workers::clocks::ClockSweeper;
use crate::workers::housekeeping::Housekeeper;
use crate::workers::matches::MatchDealer;
use crate::workers::webhooks::{WebhookFanOut, WebhookRelay};
use crate::workers::{LeaderJob, LeaderStatus, OutboxHandler, OutboxSettings, Workers};

/// Largest request body accepted.
const MAX_BODY_BYTES: usize = 64 * 1024;

/// What an operator can tune; every field has a documented default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// How long the store waits for the database before answering 503.
    pub db: DbSettings,
    /// How many event streams may be open.
    pub streams: StreamLimits,
    /// The most events one game's log may hold (`limits::MAX_EVENTS_PER_GAME`).
    pub max_events_per_game: u64,
    /// How the bus follows the store's feed.
    pub bus: BusSettings,
    /// How the outbox is worked.
    pub outbox: OutboxSettings,
    /// Which origins browser apps may call from (`http::cors`).
    pub cors: CorsSettings,
    /// Requests allowed per token and per client address (`http::rate_limit`).
    pub rate_limits: RateLimitSettings,
    /// How long an `Idempotency-Key` is remembered after its move was recorded; after that
    /// the same key is a new request (`service::DEFAULT_IDEMPOTENCY_KEY_LIFETIME`, 24 h).
    pub idempotency_key_lifetime: std::time::Duration,
    /// Whether every move must carry `If-Match` (else 428); off by default.
    pub require_preconditions: bool,
    /// Each account's vacation days a calendar year (`service::DEFAULT_VACATION_DAYS`, 30).
    pub vacation_days_per_year: u32,
    /// Whether the leader sweeps the move clocks (`workers::clocks`); on by default. Tests
    /// that drive the sweep themselves turn it off.
    pub sweep_clocks: bool,
    /// How webhooks are sent (`service::webhooks`): the receivers' timeout, and whether
    /// private addresses may be sent to (off by default).
    pub webhooks: WebhookSettings,
    /// The least time a bot takes over a move (`service::bots::DEFAULT_BOT_PACE`, 1 s), so
    /// that how long it thought does not tell its opponents about its hand.
    pub bot_pace: std::time::Duration,
    /// How appends are grouped into commits (`service::commit`).
    pub group_commit: crate::service::commit::GroupCommitSettings,
    /// The cache's byte budget and how often long games are snapshotted (`service::cache`).
    pub cache: crate::service::CacheSettings,
    /// The operator's contact (`mailto:` or `https:`), named to push services in every VAPID
    /// token (`service::DEFAULT_PUSH_CONTACT` when the operator names none).
    pub push_contact: String,
    /// How mail is sent (`service::email`): off unless an SMTP URL is set.
    pub email: EmailConfig,
    /// Whether accounts may create games on a test clock (`--sandbox`, `docs/sandbox.md`):
    /// never by default.
    pub sandbox: Sandbox,
}

/// Whether games may run on test clocks, whose time their host moves on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Sandbox {
    /// Real time only: the default, and the only choice for a server people play on.
    #[default]
    Off,
    /// Test clocks allowed, on SQLite (a test server's own file).
    On,
    /// Test clocks allowed on Postgres too: the operator says the database is a test one
    /// (`--sandbox-on-postgres`), not a production one.
    OnPostgres,
}

impl Sandbox {
    /// Whether test clocks may be used with the store at `database_url`: on Postgres, the
    /// production database, only when the operator said it is a test one.
    pub fn check(self, database_url: &str) -> Result<(), BuildError> {
        let postgres =
            database_url.starts_with("postgres:") || database_url.starts_with("postgresql:");
        if self == Sandbox::On && postgres {
            return Err(BuildError::Sandbox(
                "--sandbox is refused with a Postgres database, which is where a server people \
                 play on keeps its games; add --sandbox-on-postgres if this database is a test \
                 one"
                .into(),
            ));
        }
        Ok(())
    }

    /// Whether test clocks are allowed at all.
    pub fn is_on(self) -> bool {
        self != Sandbox::Off
    }
}

/// How the server mails (`--smtp-url`, `--mail-from`, `--public-url`, `--mails-per-hour`).
#[derive(Clone, PartialEq, Eq)]
pub struct EmailConfig {
    /// The mail server (`smtp://host:port`, `?tls=required` for STARTTLS, `smtps://` for
    /// implicit TLS, user and password in the URL); `None` sends no mail at all.
    pub smtp_url: Option<String>,
    /// Whom mails come from.
    pub from: String,
    /// The server as its players reach it, for links in mails; `None`: `http://127.0.0.1`
    /// at the port served.
    pub public_url: Option<String>,
    /// The most mails an account's addresses are sent in an hour.
    pub per_hour: u32,
}

impl std::fmt::Debug for EmailConfig {
    // The SMTP URL may hold the mail server's password: only whether it is set is shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmailConfig")
            .field("smtp_url", &self.smtp_url.as_ref().map(|_| "[set]"))
            .field("from", &self.from)
            .field("public_url", &self.public_url)
            .field("per_hour", &self.per_hour)
            .finish()
    }
}

/// Whom mails come from unless the operator says (`--mail-from`).
pub const DEFAULT_MAIL_FROM: &str = "Parlour <parlour@localhost>";

impl Default for EmailConfig {
    fn default() -> Self {
        EmailConfig {
            smtp_url: None,
            from: DEFAULT_MAIL_FROM.to_string(),
            public_url: None,
            per_hour: crate::service::email::DEFAULT_MAILS_PER_HOUR,
        }
    }
}

/// What is plugged into the service and its workers when the application is built: the
/// durable work that follows commits, who does it, and the work only the leader does.
#[derive(Clone, Default)]
pub struct Hooks {
    /// Policies that write durable work with each batch of entries.
    pub after_commit: Vec<Arc<dyn AfterCommit>>,
    /// Who does each outbox topic's work.
    pub outbox: Vec<Arc<dyn OutboxHandler>>,
    /// Work only the leading instance does.
    pub leader_jobs: Vec<Arc<dyn LeaderJob>>,
    /// The clock the service tells the time by (the system's when `None`; tests move a
    /// `ManualClock`).
    pub clock: Option<Arc<dyn Clock>>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            db: DbSettings::default(),
            streams: StreamLimits::default(),
            max_events_per_game: limits::MAX_EVENTS_PER_GAME,
            bus: BusSettings::default(),
            outbox: OutboxSettings::default(),
            cors: CorsSettings::default(),
            rate_limits: RateLimitSettings::default(),
            idempotency_key_lifetime: crate::service::DEFAULT_IDEMPOTENCY_KEY_LIFETIME,
            require_preconditions: false,
            vacation_days_per_year: crate::service::DEFAULT_VACATION_DAYS,
            sweep_clocks: true,
            webhooks: WebhookSettings::default(),
            bot_pace: crate::service::bots::DEFAULT_BOT_PACE,
            group_commit: Default::default(),
            cache: Default::default(),
            push_contact: crate::service::DEFAULT_PUSH_CONTACT.to_string(),
            email: EmailConfig::default(),
            sandbox: Sandbox::Off,
        }
    }
}

/// A running server: its address, the future that serves it, and its workers.
pub struct Application {
    port: u16,
    server: Server,
    service: Arc<Parlour>,
    store: Arc<dyn EventStore>,
    workers: Workers,
}

impl Application {
    /// Binds `addr`, then loads (or creates) the receipt signing key, connects to the store
    /// with the default settings and applies migrations.
    pub async fn build(
        addr: &str,
        database_url: &str,
        signing_key_file: &Path,
    ) -> Result<Self, BuildError> {
        Self::build_with(addr, database_url, signing_key_file, Settings::default()).await
    }

    /// Binds `addr`, then loads (or creates) the receipt signing key, raises the open-file
    /// limit, connects to the store and applies migrations.
    pub async fn build_with(
        addr: &str,
        database_url: &str,
        signing_key_file: &Path,
        settings: Settings,
    ) -> Result<Self, BuildError> {
        settings.sandbox.check(database_url)?;
        // The address first: a server that cannot have its port (another one already runs
        // there) must leave no new signing key or SQLite database behind.
        let listener =
            TcpListener::bind(addr).map_err(|e| BuildError::Bind(addr.to_string(), e))?;
        let signer = Signer::load_or_create(signing_key_file)?;
        match limits::raise_open_file_limit() {
            Ok(files) => tracing::info!(open_files = files, "open-file limit raised"),
            Err(e) => tracing::warn!("the open-file limit could not be raised: {e}"),
        }
        let store = store::connect_with(database_url, &settings.db).await?;
        Self::serve(listener, store, signer, settings)
    }

    /// Serves on an already-bound listener with the given store and default settings (tests
    /// bind port 0), signing receipts with a fresh key that dies with the process.
    pub fn with_store(
        listener: TcpListener,
        store: Arc<dyn EventStore>,
    ) -> Result<Self, BuildError> {
        Self::serve(listener, store, Signer::generate()?, Settings::default())
    }

    /// Serves on an already-bound listener with the given store, signing receipts with
    /// `signer`, with the default settings.
    pub fn with_store_and_signer(
        listener: TcpListener,
        store: Arc<dyn EventStore>,
        signer: Signer,
    ) -> Result<Self, BuildError> {
        Self::serve(listener, store, signer, Settings::default())
    }

    /// Serves on an already-bound listener with the given store and settings, signing with a
    /// fresh key. The store's own timeouts were set when it was connected
    /// (`store::connect_with`).
    pub fn with_settings(
        listener: TcpListener,
        store: Arc<dyn EventStore>,
        settings: Settings,
    ) -> Result<Self, BuildError> {
        Self::serve(listener, store, Signer::generate()?, settings)
    }

    /// Serves on an already-bound listener with no hooks: everything above comes here.
    pub fn serve(
        listener: TcpListener,
        store: Arc<dyn EventStore>,
        signer: Signer,
        settings: Settings,
    ) -> Result<Self, BuildError> {
        Self::serve_with_hooks(listener, store, signer, settings, Hooks::default())
    }

    /// Serves on an already-bound listener, with `hooks` plugged into the service and its
    /// workers.
    pub fn serve_with_hooks(
        listener: TcpListener,
        store: Arc<dyn EventStore>,
        signer: Signer,
        settings: Settings,
        hooks: Hooks,
    ) -> Result<Self, BuildError> {
        let port = listener
            .local_addr()
            .map_err(|e| BuildError::Bind("listener".into(), e))?
            .port();
        let signer = web::Data::new(signer);
        // Where players reach the server: links in mails point there, and passkeys are made
        // for its host.
        let public_url = settings
            .email
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://127.0.0.1:{port}"));
        let mut parlour = Parlour::new(store.clone(), signer.clone().into_inner())
            .with_max_events(settings.max_events_per_game)
            .with_idempotency_lifetime(settings.idempotency_key_lifetime)
            .with_required_preconditions(settings.require_preconditions)
            .with_vacation_days(settings.vacation_days_per_year)
            .with_webhook_settings(settings.webhooks)
            .with_push_contact(settings.push_contact.clone())
            .with_email(
                settings
                    .email
                    .smtp_url
                    .as_deref()
                    .map(|url| Mailer::new(url, &settings.email.from))
                    .transpose()?,
                EmailSettings {
                    public_url: public_url.clone(),
                    per_hour: settings.email.per_hour,
                },
            )
            .with_relying_party(RelyingParty::for_public_url(&public_url))
            .with_bot_pace(settings.bot_pace)
            .with_sandbox(settings.sandbox.is_on())
            .with_cache(settings.cache)
            .with_after_commit(Arc::new(WebhookCommits));
        if let Some(clock) = hooks.clock {
            parlour = parlour.with_clock(clock);
        }
        parlour = parlour.with_group_commit(settings.group_commit);
        for policy in hooks.after_commit {
            parlour = parlour.with_after_commit(policy);
        }
        let service = web::Data::new(parlour);
        let running = service.clone().into_inner();
        let mut leader_jobs = hooks.leader_jobs;
        if settings.sweep_clocks {
            leader_jobs.push(Arc::new(ClockSweeper::new(running.clone())));
        }
        if settings.webhooks.relay {
            leader_jobs.push(Arc::new(WebhookRelay::new(running.clone())));
        }
        leader_jobs.push(Arc::new(Housekeeper::new(running.clone())));
        let mut outbox = hooks.outbox;
        outbox.push(Arc::new(WebhookFanOut::new(running.clone())));
        outbox.push(Arc::new(BotPlayer::new(running.clone())));
        outbox.push(Arc::new(MatchDealer::new(running.clone())));
        let workers = Workers {
            bus: Arc::new(Bus::new()),
            bus_settings: settings.bus,
            outbox,
            outbox_settings: settings.outbox,
            leader_jobs,
            leadership: Arc::new(LeaderStatus::default()),
        };
        let leadership = web::Data::from(workers.leadership.clone());
        // Account streams follow this instance's bus for live commits.
        let bus = web::Data::from(workers.bus.clone());
        let document = web::Data::new(crate::routes::docs::ApiDocument(crate::openapi::spec()));
        // Streams alone must never use up the descriptors everyone else needs to connect.
        let streams = match rlimit::getrlimit(rlimit::Resource::NOFILE) {
            Ok((soft, _)) => settings.streams.fitted_to(soft),
            Err(_) => settings.streams,
        };
        if streams != settings.streams {
            tracing::warn!(
                max_streams = streams.total,
                "the stream cap was lowered to fit the open-file limit"
            );
        }
        let gate = web::Data::new(StreamGate::new(streams));
        let cors = web::Data::new(settings.cors);
        let limiter = web::Data::new(RateLimiter::new(&settings.rate_limits));
        let metrics = web::Data::new(Metrics::default());
        let server = HttpServer::new(move || {
            App::new()
                // From the inside out: limits, CORS (so a refusal can be read by the page and
                // a preflight is never counted), the id and trace echoed, the request's span.
                .wrap(from_fn(head::as_get))
                .wrap(from_fn(rate_limit::limit))
                .wrap(from_fn(cors::cors))
                .wrap(from_fn(trace::echo))
                .wrap(TracingLogger::<RequestSpan>::new())
                .app_data(cors.clone())
                .app_data(limiter.clone())
                .app_data(metrics.clone())
                .app_data(service.clone())
                .app_data(gate.clone())
                .app_data(signer.clone())
                .app_data(leadership.clone())
                .app_data(bus.clone())
                .app_data(document.clone())
                .app_data(
                    web::JsonConfig::default()
                        .limit(MAX_BODY_BYTES)
                        .error_handler(|e, req| {
                            ApiError::from_json_error(&e, req, MAX_BODY_BYTES).into()
                        }),
                )
                .app_data(web::QueryConfig::default().error_handler(|e, _| {
                    ApiError::new(Problem::MalformedRequest, format!("bad query: {e}")).into()
                }))
                .app_data(web::PathConfig::default().error_handler(|e, _| {
                    ApiError::new(Problem::NotFound, format!("bad path: {e}")).into()
                }))
                .configure(routes::configure_pages)
                .into_utoipa_app()
                .configure(routes::configure)
                .into_app()
                .default_service(web::to(no_route))
        })
        .listen(listener)
        .map_err(|e| BuildError::Bind("listener".into(), e))?
        .run();
        Ok(Application {
            port,
            server,
            service: running,
            store,
            workers,
        })
    }

    /// The service it serves (tests drive its clock sweep directly).
    pub fn service(&self) -> Arc<Parlour> {
        self.service.clone()
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Whether this instance leads the work that must happen once (see `workers::leader`).
    pub fn leadership(&self) -> Arc<LeaderStatus> {
        self.workers.leadership.clone()
    }

    /// Serves, with the workers beside it, until the server is stopped.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let workers = self.workers.run_until_stopped(self.service, self.store);
        tokio::select! {
            served = self.server => served,
            () = workers => Ok(()),
        }
    }
}

/// What answers a request no route took: 405 with `Allow` when the path is one of ours with
/// another method, else 404.
async fn no_route(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    // A HEAD comes here as its GET (`http::head`); its answer is sent without this text.
    let method = req.method();
    if let Some(pattern) = req.match_pattern() {
        let allowed = crate::openapi::methods_at(&pattern);
        if !allowed.iter().any(|m| m == req.method().as_str()) {
            return Err(ApiError::method_not_allowed(
                method.as_str(),
                req.path(),
                &allowed,
            ));
        }
    }
    Err(ApiError::new(
        Problem::NotFound,
        format!(
            "there is nothing at {} {}",
            method,
            crate::error::truncated(req.path(), 200)
        ),
    ))
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The database could not be opened or migrated.
    #[error("cannot open the database: {0}")]
    Store(#[from] StoreError),
    /// The address could not be bound.
    #[error("cannot listen on {0}: {1}")]
    Bind(String, std::io::Error),
    /// The receipt signing key could not be read or created.
    #[error("cannot load the receipt signing key: {0}")]
    SigningKey(#[from] KeyError),
    /// The mail settings cannot be used.
    #[error("{0}")]
    Mail(#[from] MailSetupError),
    /// Test clocks asked for where they are refused.
    #[error("{0}")]
    Sandbox(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_clocks_are_refused_on_postgres_unless_the_operator_says_it_is_a_test_database() {
        let postgres = "postgres://parlour@127.0.0.1:5432/parlour";
        assert!(matches!(
            Sandbox::On.check(postgres),
            Err(BuildError::Sandbox(_))
        ));
        assert!(Sandbox::On.check("postgresql://db/parlour").is_err());
        assert!(Sandbox::OnPostgres.check(postgres).is_ok());
        assert!(Sandbox::On.check("sqlite://parlour-test.db").is_ok());
        assert!(Sandbox::Off.check(postgres).is_ok());
        assert!(!Sandbox::Off.is_on() && Sandbox::On.is_on() && Sandbox::OnPostgres.is_on());
    }
}
