//! The API's integration tests: one binary, every test against a real server on a random
//! port, on SQLite and on Postgres (`DATABASE_URL`, else a testcontainers Postgres).

mod basics;
mod client;
mod crash;
mod errors;
mod helpers;
mod play;
mod store;
mod verify;
