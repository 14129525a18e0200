//! Use cases: each endpoint's and each CLI command's behaviour, on top of the ports.

pub mod api_writes;
pub mod authenticate;
pub mod catalogue;
mod client_gate;
pub mod client_writes;
pub mod clients;
pub mod import;
pub mod keys;
pub mod loyalty;
pub mod loyalty_points;
pub mod orders;
pub mod owner_sessions;
pub mod owners;
pub mod product_writes;
pub mod rate_limit;
mod read_error;
mod reserved_slots;
pub mod shops;
pub mod stock;
#[cfg(test)]
mod test_caller;
#[cfg(test)]
mod test_clock;
pub mod webhooks;

pub use api_writes::ApiWriteHistory;
pub use authenticate::{
    AuthError, AuthStats, Authenticator, DigestedKey, FailureBudgets, Principal, Recall, Rejection,
    Throttle, ThrottledBy,
};
pub use catalogue::ProductCatalogue;
pub use client_writes::{ClientEditor, ClientWriteError, ClientWritten};
pub use clients::ClientDirectory;
pub use import::{ImportError, ImportShopData};
pub use keys::{
    CreatedKey, KeyAdmin, KeyAdminError, KeyField, KeyListing, KeyProblem, NewKey, NewShopKey,
};
pub use loyalty::{LoyaltyOverview, LoyaltySummary};
pub use loyalty_points::{PointsAdjusted, PointsError, PointsKeeper};
pub use orders::OrderHistory;
pub use owner_sessions::{OwnerSessions, SignInError, SignInLimits, StartedSession};
pub use owners::{OwnerAdmin, OwnerAdminError};
pub use product_writes::{ProductEditor, ProductWriteError, ProductWritten};
pub use rate_limit::{RateLimiter, RateLimits};
pub use read_error::ReadError;
pub use shops::{NewShop, ShopAdmin, ShopAdminError, ShopChange};
pub use stock::{AdjustError, Adjusted, StockKeeper};
