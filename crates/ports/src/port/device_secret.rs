use async_trait::async_trait;
use shop_domain::owner_device::DeviceSecret;

use crate::StoreError;

/// Where the key that signs the console's device cookies lives: in the database, so that
/// every instance signs and checks with the same key and a restart keeps the cookies valid.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait DeviceSecretStore: Send + Sync {
    /// The stored secret; when none is stored yet, `candidate` is stored and returned. Two
    /// instances that race to store theirs both get the one stored first. `Unavailable` when
    /// the store cannot be reached; a stored value that is no secret is a `Failure`.
    async fn device_secret(&self, candidate: &DeviceSecret) -> Result<DeviceSecret, StoreError>;
}
