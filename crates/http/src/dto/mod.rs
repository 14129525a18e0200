//! Response bodies. Each is a plain `Serialize` struct converted by hand from a domain value:
//! the JSON names and types of the spec live here and nowhere else, and a domain field that
//! has no DTO field cannot leak. `Option`s serialize as `null`, never as a missing key.

pub mod client;
pub mod loyalty;
pub mod me;
pub mod order;
pub mod page;
pub mod product;
pub mod stock;
