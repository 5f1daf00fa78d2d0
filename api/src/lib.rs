//! The `parlour` server: the HTTP API over the event store and the rules in `parlour-domain`.
#![forbid(unsafe_code)]

pub mod bus;
pub mod chain;
pub mod dto;
pub mod error;
pub mod http;
pub mod ledger;
pub mod limits;
pub mod mail;
pub mod openapi;
pub mod probe;
pub mod push;
pub mod receipts;
pub mod routes;
pub mod scopes;
pub mod service;
pub mod startup;
pub mod store;
pub mod telemetry;
pub mod webhooks;
pub mod wire;
pub mod workers;
