//! Use cases: each endpoint's and each CLI command's behaviour, on top of the ports.

pub mod authenticate;
pub mod catalogue;
pub mod import;
pub mod keys;
pub mod shops;

pub use authenticate::{AuthError, AuthStats, Authenticator, Principal};
pub use catalogue::{CatalogueError, ProductCatalogue};
pub use import::{ImportError, ImportShopData};
pub use keys::{CreatedKey, KeyAdmin, KeyAdminError, NewKey};
pub use shops::{NewShop, ShopAdmin, ShopAdminError, ShopChange};
