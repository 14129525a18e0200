use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::id::ShopId;
use shop_domain::import::{ImportProblem, ShopImport};

use crate::StoreError;

/// What an import wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    pub products_written: usize,
    pub products_unchanged: usize,
    pub tiers_written: usize,
    pub tiers_unchanged: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum ImportStoreError {
    /// Ids in the file that belong to another shop (ids are unique across shops). Nothing was
    /// written.
    #[error("ids belong to another shop")]
    ForeignIds(Vec<ImportProblem>),
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait ImportRepository: Send + Sync {
    /// Upserts the data into the shop in ONE transaction, deciding each product with
    /// `shop_domain::import::decide_product_import` against what is stored: either all of it
    /// is applied or nothing is.
    async fn import(
        &self,
        shop: &ShopId,
        data: ShopImport,
        now: Timestamp,
    ) -> Result<ImportReport, ImportStoreError>;
}
