//! What every request passes through before and after its handler: its identity and trace
//! (`trace`), cross-origin access (`cors`), rate limits (`rate_limit`) and the request
//! counts served at `/metrics` (`metrics`).
//!
//! `startup` wraps the application in them, from the outside in: the request's span
//! (`telemetry::RequestSpan`, which also writes the access log and the request metrics),
//! `trace::echo`, `cors::cors`, `rate_limit::limit`, `head::as_get` (so a `HEAD` is counted
//! and logged as the `HEAD` it is, and routed as its `GET`). So a preflight is answered before any
//! limit is counted, and a refused request still carries its request id and CORS headers.

pub mod cors;
pub mod head;
pub mod metrics;
pub mod rate_limit;
pub mod trace;
