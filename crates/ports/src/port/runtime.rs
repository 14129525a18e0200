//! Time and identity: read from the outside so that rules stay testable.

use shop_domain::Timestamp;

#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait Clock: Send + Sync {
    /// The current instant, truncated to the millisecond.
    fn now(&self) -> Timestamp;
}

#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait IdGenerator: Send + Sync {
    /// A new, globally unique id that is valid for every `shop_domain::id` type.
    fn new_id(&self) -> String;
}

/// 256 random bits from the operating system's generator, for session ids and anti-CSRF
/// tokens.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait RandomTokens: Send + Sync {
    fn random_bytes(&self) -> [u8; 32];
}
