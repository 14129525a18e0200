//! The non-database outbound adapters: clock, ids, key material, argon2, rate-limit stores,
//! Redis readiness.

mod argon2_hasher;
mod clock;
mod ids;
mod key_material;
pub mod rate_limit;
mod readiness;

pub use argon2_hasher::Argon2Hasher;
pub use clock::SystemClock;
pub use ids::UuidV7Ids;
pub use key_material::OsKeyMaterial;
pub use readiness::RedisReadiness;
