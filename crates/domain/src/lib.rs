//! Pure rules and value types of the shop API.
//!
//! **Invariant:** this crate performs no I/O and reads no clock: no tokio, actix, diesel or JSON
//! parsing. The shop owners' dashboard shares it, and `.ci/run` checks the dependency tree.
//! Values are parsed at the edges into the newtypes below; past the edge, an invalid value
//! cannot exist.

pub mod access;
pub mod api_key;
pub mod api_write;
pub mod catalogue;
mod checkpoint;
pub mod client;
pub mod client_address;
pub mod color;
mod day;
mod hex;
pub mod id;
pub mod import;
pub mod loyalty;
pub mod money;
pub mod order;
pub mod owner;
pub mod owner_device;
pub mod owner_session;
pub mod pagination;
pub mod rate_limit;
pub mod scope;
pub mod shop;
pub mod stock;
pub mod sync;
pub mod tax_rate;
pub mod text;
pub mod timeline;
pub mod timestamp;
pub mod webhook;
pub mod write;

pub use timestamp::Timestamp;
