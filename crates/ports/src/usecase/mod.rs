//! Use cases: each endpoint's and each CLI command's behaviour, on top of the ports.

pub mod authenticate;
pub mod catalogue;
pub mod clients;
pub mod import;
pub mod keys;
pub mod loyalty;
pub mod orders;
pub mod rate_limit;
mod read_error;
pub mod seed;
pub mod shops;
pub mod stock;

pub use authenticate::{
    AuthError, AuthStats, Authenticator, DigestedKey, Principal, Recall, Rejection,
};
pub use catalogue::ProductCatalogue;
pub use clients::ClientDirectory;
pub use import::{ImportError, ImportShopData};
pub use keys::{CreatedKey, KeyAdmin, KeyAdminError, NewKey};
pub use loyalty::{LoyaltyOverview, LoyaltySummary};
pub use orders::OrderHistory;
pub use rate_limit::{RateLimiter, RateLimits};
pub use read_error::ReadError;
pub use seed::{BatchSource, SeedCounts, SeedError, SeedShop};
pub use shops::{NewShop, ShopAdmin, ShopAdminError, ShopChange};
pub use stock::StockKeeper;
