//! Structured logs: `RUST_LOG` sets the level; every line of a request carries its request id.

use tracing_subscriber::{fmt, EnvFilter};

/// Installs the global subscriber once; later calls (in tests) do nothing.
pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = fmt().with_env_filter(filter).with_target(false).try_init();
}
