//! Wiring of the shop API: configuration, the `shop-api` CLI, server start.
//!
//! **Invariant:** no business rule lives here. This crate builds adapters, hands them to the
//! use cases of `shop-ports`, and starts `shop-http`. It is also a library so that the
//! black-box suite starts the very same server in-process.

pub mod adapters;
pub mod cli;
pub mod deliveries;
pub mod demo;
pub mod import_file;
pub mod server;
pub mod services;
pub mod stop_signal;
pub mod telemetry;
