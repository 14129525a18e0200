//! Outbound ports.

mod api_writes;
mod catalogue;
mod claim_room;
mod client_writer;
mod clients;
mod device_secret;
mod health;
mod import;
mod keys;
mod loyalty;
mod orders;
mod owners;
mod points_ledger;
mod precondition;
mod product_writer;
mod rate_limit;
mod replication;
mod runtime;
mod sessions;
mod shops;
mod stock;
mod webhook_sender;
mod webhooks;

pub use api_writes::ApiWriteLog;
pub use catalogue::CatalogueRepository;
pub use claim_room::ClaimRoom;
pub use client_writer::{
    ClientWriter, CreateClientCommand, CreateClientOutcome, CreateClientResult, PatchClientCommand,
    PatchClientResult,
};
pub use clients::ClientRepository;
pub use device_secret::DeviceSecretStore;
pub use health::{
    HealthCheck, PoolMonitor, PoolStats, ReplicaMonitor, ReplicaState, ReplicaStats, ReplicaStatus,
    Unhealthy,
};
pub use import::{ImportCounts, ImportReport, ImportRepository, ImportStoreError};
pub use keys::{ApiKeyStore, HashError, KeyMaterial, KeyUsageSink, SecretHasher};
pub use loyalty::LoyaltyRepository;
pub use orders::OrderRepository;
pub use owners::{OwnerStore, PasswordHasher};
pub use points_ledger::{PointsCommand, PointsLedger, PointsOutcome, PointsResult};
pub use precondition::Precondition;
pub use product_writer::{
    AddVariantCommand, CreateProductCommand, PatchProductCommand, PatchVariantCommand,
    ProductPostOutcome, ProductWriteContext, ProductWriteResult, ProductWriter,
};
pub use rate_limit::{RateLimitStore, RateStoreError, Reservation, Slot};
pub use replication::{ReadFrom, WritePosition, WritePositions};
pub use runtime::{Clock, IdGenerator, RandomTokens};
pub use sessions::{SessionStore, SignedIn};
pub use shops::ShopStore;
pub use stock::{
    AdjustmentCommand, AdjustmentOutcome, IdempotencyClaim, StockRepository, TrackingCommand,
    TrackingOutcome,
};
pub use webhook_sender::{OutgoingDelivery, SentAttempt, WebhookSender};
pub use webhooks::{
    AttemptRecord, ClaimedDelivery, DeliveryNext, DeliveryQuery, DeliveryQueue, DueWork,
    EndpointChange, EndpointCreation, EventLog, EventQuery, EventRenderer, LoggedEvent,
    NewEndpoint, Turn, WebhookEndpointStore,
};

#[cfg(feature = "mocks")]
pub use api_writes::MockApiWriteLog;
#[cfg(feature = "mocks")]
pub use catalogue::MockCatalogueRepository;
#[cfg(feature = "mocks")]
pub use client_writer::MockClientWriter;
#[cfg(feature = "mocks")]
pub use clients::MockClientRepository;
#[cfg(feature = "mocks")]
pub use device_secret::MockDeviceSecretStore;
#[cfg(feature = "mocks")]
pub use health::{MockHealthCheck, MockPoolMonitor, MockReplicaMonitor};
#[cfg(feature = "mocks")]
pub use import::MockImportRepository;
#[cfg(feature = "mocks")]
pub use keys::{MockApiKeyStore, MockKeyMaterial, MockKeyUsageSink, MockSecretHasher};
#[cfg(feature = "mocks")]
pub use loyalty::MockLoyaltyRepository;
#[cfg(feature = "mocks")]
pub use orders::MockOrderRepository;
#[cfg(feature = "mocks")]
pub use owners::{MockOwnerStore, MockPasswordHasher};
#[cfg(feature = "mocks")]
pub use points_ledger::MockPointsLedger;
#[cfg(feature = "mocks")]
pub use product_writer::MockProductWriter;
#[cfg(feature = "mocks")]
pub use rate_limit::{MockRateLimitStore, mock_on_real_windows};
#[cfg(feature = "mocks")]
pub use replication::MockWritePositions;
#[cfg(feature = "mocks")]
pub use runtime::{MockClock, MockIdGenerator, MockRandomTokens};
#[cfg(feature = "mocks")]
pub use sessions::MockSessionStore;
#[cfg(feature = "mocks")]
pub use shops::MockShopStore;
#[cfg(feature = "mocks")]
pub use stock::MockStockRepository;
#[cfg(feature = "mocks")]
pub use webhook_sender::MockWebhookSender;
#[cfg(feature = "mocks")]
pub use webhooks::{MockDeliveryQueue, MockEventLog, MockEventRenderer, MockWebhookEndpointStore};
