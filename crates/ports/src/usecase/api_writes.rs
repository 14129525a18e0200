//! The console's "API writes" page: what the shop's API keys wrote, newest first, a page at a
//! time with an opaque cursor (issue 35).

use std::sync::Arc;

use shop_domain::api_write::{ApiWrite, ApiWriteQuery};
use shop_domain::id::ShopId;
use shop_domain::pagination::Page;
use shop_domain::timeline;

use crate::StoreError;
use crate::port::ApiWriteLog;

pub struct ApiWriteHistory {
    log: Arc<dyn ApiWriteLog>,
}

impl ApiWriteHistory {
    pub fn new(log: Arc<dyn ApiWriteLog>) -> Self {
        Self { log }
    }

    /// A page of the shop's writes; its cursor names the last line kept, and the next page
    /// starts strictly after it.
    pub async fn page(
        &self,
        shop: &ShopId,
        query: &ApiWriteQuery,
    ) -> Result<Page<ApiWrite>, StoreError> {
        let rows = self.log.list_api_writes(shop, query).await?;
        Ok(timeline::page(rows, query.limit))
    }
}

#[cfg(test)]
mod tests;
