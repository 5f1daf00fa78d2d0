//! Builds the HTTP application around the service.

use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;

use actix_web::dev::{Server, Service};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::{web, App, HttpMessage, HttpRequest, HttpResponse, HttpServer};
use tracing_actix_web::{RequestId, TracingLogger};

use crate::error::{ApiError, Problem};
use crate::receipts::{KeyError, Signer};
use crate::routes;
use crate::service::Parlour;
use crate::store::{self, EventStore, StoreError};

/// Largest request body accepted.
const MAX_BODY_BYTES: usize = 64 * 1024;

/// A running server: its address and the future that serves it.
pub struct Application {
    port: u16,
    server: Server,
}

impl Application {
    /// Loads (or creates) the receipt signing key, connects to the store, applies migrations
    /// and binds `addr`.
    pub async fn build(
        addr: &str,
        database_url: &str,
        signing_key_file: &Path,
    ) -> Result<Self, BuildError> {
        let signer = Signer::load_or_create(signing_key_file)?;
        let store = store::connect(database_url).await?;
        let listener =
            TcpListener::bind(addr).map_err(|e| BuildError::Bind(addr.to_string(), e))?;
        Self::with_store_and_signer(listener, store, signer)
    }

    /// Serves on an already-bound listener with the given store (tests bind port 0), signing
    /// receipts with a fresh key that dies with the process.
    pub fn with_store(
        listener: TcpListener,
        store: Arc<dyn EventStore>,
    ) -> Result<Self, BuildError> {
        Self::with_store_and_signer(listener, store, Signer::generate()?)
    }

    /// Serves on an already-bound listener with the given store, signing receipts with `signer`
    /// (handlers get it as `web::Data<Signer>`).
    pub fn with_store_and_signer(
        listener: TcpListener,
        store: Arc<dyn EventStore>,
        signer: Signer,
    ) -> Result<Self, BuildError> {
        let port = listener
            .local_addr()
            .map_err(|e| BuildError::Bind("listener".into(), e))?
            .port();
        let signer = web::Data::new(signer);
        let service = web::Data::new(Parlour::new(store, signer.clone().into_inner()));
        let server = HttpServer::new(move || {
            App::new()
                .wrap_fn(|req, srv| {
                    let id = req.extensions().get::<RequestId>().map(|id| id.to_string());
                    let call = srv.call(req);
                    async move {
                        let mut res = call.await?;
                        if let Some(value) = id.and_then(|id| HeaderValue::from_str(&id).ok()) {
                            res.headers_mut()
                                .insert(HeaderName::from_static("x-request-id"), value);
                        }
                        Ok(res)
                    }
                })
                .wrap(TracingLogger::default())
                .app_data(service.clone())
                .app_data(signer.clone())
                .app_data(
                    web::JsonConfig::default()
                        .limit(MAX_BODY_BYTES)
                        .error_handler(|e, _| {
                            ApiError::new(Problem::MalformedRequest, format!("bad JSON body: {e}"))
                                .into()
                        }),
                )
                .app_data(web::QueryConfig::default().error_handler(|e, _| {
                    ApiError::new(Problem::MalformedRequest, format!("bad query: {e}")).into()
                }))
                .app_data(web::PathConfig::default().error_handler(|e, _| {
                    ApiError::new(Problem::NotFound, format!("bad path: {e}")).into()
                }))
                .configure(routes::configure)
                .default_service(web::to(not_found))
        })
        .listen(listener)
        .map_err(|e| BuildError::Bind("listener".into(), e))?
        .run();
        Ok(Application { port, server })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until stopped.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}

async fn not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::new(
        Problem::NotFound,
        format!("there is nothing at {} {}", req.method(), req.path()),
    ))
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The database could not be opened or migrated.
    #[error("cannot open the database: {0}")]
    Store(#[from] StoreError),
    /// The receipt signing key could not be read or created.
    #[error("cannot load the receipt signing key: {0}")]
    SigningKey(#[from] KeyError),
    /// The address could not be bound.
    #[error("cannot listen on {0}: {1}")]
    Bind(String, std::io::Error),
}
