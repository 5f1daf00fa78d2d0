//! The API's integration tests: one binary, every test against a real server on a random
//! port, on SQLite and on Postgres (`DATABASE_URL`, else a testcontainers Postgres).

mod attacks;
mod basics;
mod british_birds;
mod bus;
mod client;
mod crash;
mod errors;
mod fixtures;
mod googly;
mod helpers;
mod history_of_england;
mod instances;
mod outage;
mod play;
mod receipts;
mod schemas;
mod store;
mod table_events;
mod verify;
