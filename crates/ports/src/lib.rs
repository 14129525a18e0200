//! The ports the core needs from the outside world, and the use cases built on them.
//!
//! Each port method's doc comment states its error contract. Adapters live elsewhere:
//! `shop-persistence` implements the stores on diesel, `shop-app` the clock, ids, random key
//! material and the argon2 hasher. Mocks of every port are exported under the `mocks` feature.

pub mod error;
pub mod port;
pub mod usecase;

pub use error::{BoxError, StoreError, error_chain};
