use async_trait::async_trait;
use shop_domain::api_write::{ApiWrite, ApiWriteQuery};
use shop_domain::id::ShopId;

use crate::StoreError;

/// What the shop's API keys wrote, for the owners' console (issue 35). Each write is recorded
/// in its own transaction (`ClientWriter`, `ProductWriter`, `PointsLedger`), so that the list
/// holds every write that happened and nothing else; this port only reads it.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait ApiWriteLog: Send + Sync {
    /// Up to `query.limit + 1` of the shop's writes (its resources' creates and patches, and
    /// its clients' points adjustments), each with its key's prefix and label, newest first by
    /// (time, id), strictly older than `query.before`. Unavailable or failing as any read.
    async fn list_api_writes(
        &self,
        shop: &ShopId,
        query: &ApiWriteQuery,
    ) -> Result<Vec<ApiWrite>, StoreError>;
}
