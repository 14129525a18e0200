//! The non-database outbound adapters: clock, ids, key material and session tokens, argon2
//! (keys and passwords), the keys' last-use writer, rate-limit stores, Redis readiness, the
//! keys' write positions for reads on replicas.

mod argon2_hasher;
mod clock;
mod ids;
mod key_material;
mod key_usage;
pub mod rate_limit;
mod readiness;
mod write_positions;

pub use argon2_hasher::Argon2Hasher;
pub use clock::SystemClock;
pub use ids::UuidV7Ids;
pub use key_material::OsKeyMaterial;
pub use key_usage::KeyUsageWriter;
pub use readiness::RedisReadiness;
pub use write_positions::{LocalWritePositions, RedisWritePositions};
