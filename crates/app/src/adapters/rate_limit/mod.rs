//! Where the rate-limit windows live: in the process ([`InMemoryRateStore`], the default for
//! one instance), or in Redis ([`RedisRateStore`]), shared by every instance, behind
//! [`FallbackRateStore`], which keeps limiting per instance while Redis cannot be reached.
//!
//! Every store follows `shop_domain::rate_limit::SlidingWindow` exactly; `contract_tests`
//! runs the same scenarios against each of them.

mod fallback;
mod memory;
mod redis;

#[cfg(test)]
mod contract_tests;

pub use fallback::FallbackRateStore;
pub use memory::InMemoryRateStore;
pub use redis::{DEFAULT_KEY_PREFIX, DEFAULT_TIMEOUT, RedisConfigError, RedisRateStore};
