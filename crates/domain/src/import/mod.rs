//! Rules of `shop-api import`: which files are refused, and what an idempotent upsert by id
//! changes.
//!
//! - `import/refusals.rs` ([`refusals()`], [`ShopImport::duplicate_ids`]): why a row of the
//!   file is refused, each problem at its JSON path. Every rule that turns a file away once it
//!   is read lives there: ids twice in the file, ids of another shop, children stored under
//!   another parent, references that resolve nowhere.
//! - `import/upsert.rs` (`decide_*_import`, [`resolve_stamps`]): re-importing the same file
//!   must change nothing, not even `updatedAt`, so a row is only written when its content or
//!   its given timestamps differ from what is stored.

mod refusals;
mod upsert;

pub use refusals::{IdsToLocate, StoredChild, StoredOwnership, refusals};
pub use upsert::{
    Event, ImportDecision, ProductImportDecision, Stamps, decide_client_import,
    decide_event_import, decide_order_import, decide_product_import, resolve_stamps,
};

use crate::Timestamp;
use crate::catalogue::Product;
use crate::client::{Client, ClientConfidential};
use crate::loyalty::{LotteryTicket, LoyaltyTier, Spin};
use crate::order::{Order, OrderConfidential};

/// Timestamps as given in the file (see [`resolve_stamps`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GivenStamps {
    /// Kept when given; absent: the stored one, or now.
    pub created_at: Option<Timestamp>,
    /// Read and checked like any field, never stored: a written row's `updatedAt` is the
    /// time of the write.
    pub updated_at: Option<Timestamp>,
}

/// A product from an import file. Its `created_at`/`updated_at` fields are placeholders: the
/// real ones come from [`decide_product_import`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedProduct {
    pub product: Product,
    pub stamps: GivenStamps,
}

/// A client from an import file, with its private fields (placeholders for timestamps, as
/// for products).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedClient {
    pub client: Client,
    pub confidential: ClientConfidential,
    pub stamps: GivenStamps,
}

/// An order from an import file, with its confidential fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedOrder {
    pub order: Order,
    pub confidential: OrderConfidential,
    pub stamps: GivenStamps,
}

/// A ticket or a spin from an import file; `created_at` as given (absent: kept or now).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedEvent<T> {
    pub event: T,
    pub created_at: Option<Timestamp>,
}

/// Everything an import file holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShopImport {
    pub tiers: Vec<LoyaltyTier>,
    pub products: Vec<ImportedProduct>,
    pub clients: Vec<ImportedClient>,
    pub orders: Vec<ImportedOrder>,
    pub lottery_tickets: Vec<ImportedEvent<LotteryTicket>>,
    pub spins: Vec<ImportedEvent<Spin>>,
}

/// A problem in an import file, at a JSON path such as `products[3].variants[0].id`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportProblem {
    pub path: String,
    pub message: String,
}

impl ImportProblem {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ImportProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}
