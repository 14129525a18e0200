//! Outbound ports.

mod catalogue;
mod import;
mod keys;
mod runtime;
mod shops;

pub use catalogue::CatalogueRepository;
pub use import::{ImportReport, ImportRepository, ImportStoreError};
pub use keys::{ApiKeyStore, HashError, KeyMaterial, SecretHasher};
pub use runtime::{Clock, IdGenerator};
pub use shops::ShopStore;

#[cfg(feature = "mocks")]
pub use catalogue::MockCatalogueRepository;
#[cfg(feature = "mocks")]
pub use import::MockImportRepository;
#[cfg(feature = "mocks")]
pub use keys::{MockApiKeyStore, MockKeyMaterial, MockSecretHasher};
#[cfg(feature = "mocks")]
pub use runtime::{MockClock, MockIdGenerator};
#[cfg(feature = "mocks")]
pub use shops::MockShopStore;
