//! The API's integration tests: one binary, every test against a real server on a random
//! port, on SQLite and on Postgres (`DATABASE_URL`, else a local server, else a private cluster
//! the tests start themselves, else testcontainers: `pg_server.rs`).

// Issue 9 lints: tests fail by panicking, so unwrap/expect in their helpers is the point, and
// their casts are over small counts and test sizes where truncation cannot matter.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

mod accounts;
mod assets;
mod attacks;
mod basics;
mod bots;
mod british_birds;
mod bus;
mod checkpoints;
mod client;
mod clocks;
mod cold;
mod contract;
mod conventions;
mod cors;
mod crash;
mod deployment;
mod email;
mod errors;
mod example_client;
mod fixtures;
mod googly;
mod helpers;
mod history_of_england;
mod instances;
mod logs;
mod matches;
mod metrics;
mod oauth;
mod open_tables;
mod operation_examples;
mod outage;
mod paging;
mod passkeys;
mod pg_server;
mod play;
mod problem_examples;
mod push;
mod rate_limits;
mod readme;
mod receipts;
mod revocation;
mod routes;
mod sandbox;
mod schemas;
mod store;
mod stream_tickets;
mod strict_input;
mod table_events;
mod tables;
mod verify;
mod webhooks;
