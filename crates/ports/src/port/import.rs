use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::id::ShopId;
use shop_domain::import::{ImportProblem, ShopImport};

use crate::StoreError;

/// Rows of one kind that an import wrote or found unchanged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportCounts {
    pub written: usize,
    pub unchanged: usize,
}

/// What an import did, per kind of row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    pub tiers: ImportCounts,
    pub products: ImportCounts,
    pub clients: ImportCounts,
    pub orders: ImportCounts,
    pub lottery_tickets: ImportCounts,
    pub spins: ImportCounts,
}

#[derive(Debug, thiserror::Error)]
pub enum ImportStoreError {
    /// The file against what the store holds, each problem at its JSON path; nothing was
    /// written. The rules are the domain's, [`shop_domain::import::refusals`]: the store only
    /// says where the file's ids are stored.
    #[error("the file refers to rows it may not")]
    Rejected(Vec<ImportProblem>),
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait ImportRepository: Send + Sync {
    /// Upserts the data into the shop in ONE transaction, deciding each row with the
    /// `shop_domain::import::decide_*` rules against what is stored: either all of it is
    /// applied or nothing is.
    async fn import(
        &self,
        shop: &ShopId,
        data: ShopImport,
        now: Timestamp,
    ) -> Result<ImportReport, ImportStoreError>;
}
