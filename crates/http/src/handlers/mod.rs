//! One async function per endpoint. Each follows the contract's order: authenticate for its
//! operation, parse the query (and a write's body), call the use case, convert to a DTO.

pub mod clients;
pub mod fallback;
pub mod health;
pub mod loyalty;
pub mod me;
pub mod orders;
pub mod products;
pub mod stock;
