//! `ApiWriteLog`: the console's list of the writes made by API keys (issue 35), newest first.
//!
//! Two keyset queries, one per kind, each walking its own `(shop_id, created_at_ms, id)` index
//! from the cursor (`api_writes_shop_id_created_at_id`,
//! `loyalty_adjustments_shop_id_created_at_id`) and stopping at `limit + 1` lines or a few more
//! (`first_rows.rs`); `merge_newest_first` keeps the first `limit + 1` of both, as the stock
//! activity does (`stock/activity.rs`). Each line comes with its key's label in the same
//! query, the key matched on the shop too. Written once for both backends.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::api_write::{ApiWrite, ApiWriteQuery};
use shop_domain::id::ShopId;
use shop_domain::timeline::merge_newest_first;
use shop_ports::StoreError;
use shop_ports::port::ApiWriteLog;

use crate::database::{Database, impl_for_each_backend, with_conn};
use crate::error::DbError;
use crate::rows::{ApiWriteLineRow, PointsAdjustmentRow};
use crate::schema::{api_keys, api_writes, loyalty_adjustments};
use crate::sql::first_rows::first_rows;

/// A line of each kind, with its key's label.
type WriteLine = (ApiWriteLineRow, String);
type PointsLine = (PointsAdjustmentRow, String);

pub(crate) trait ApiWriteQueries {
    /// `query.limit + 1` of each kind, or a few more (`first_rows.rs`), each newest first,
    /// strictly older than `query.before`.
    fn load_api_writes(
        &mut self,
        shop: &ShopId,
        query: &ApiWriteQuery,
    ) -> impl Future<Output = Result<(Vec<WriteLine>, Vec<PointsLine>), DbError>> + Send;
}

impl_for_each_backend! {
    impl ApiWriteQueries {
        async fn load_api_writes(
            &mut self,
            shop: &ShopId,
            query: &ApiWriteQuery,
        ) -> Result<(Vec<WriteLine>, Vec<PointsLine>), DbError> {
            let mut writes = api_writes::table
                .inner_join(
                    api_keys::table.on(api_keys::prefix
                        .eq(api_writes::api_key_prefix)
                        .and(api_keys::shop_id.eq(api_writes::shop_id))),
                )
                .filter(api_writes::shop_id.eq(shop.as_str()))
                .select((ApiWriteLineRow::as_select(), api_keys::label))
                .order((api_writes::created_at_ms.desc(), api_writes::id.desc()))
                .into_boxed();
            let mut points = loyalty_adjustments::table
                .inner_join(
                    api_keys::table.on(api_keys::prefix
                        .eq(loyalty_adjustments::api_key_prefix)
                        .and(api_keys::shop_id.eq(loyalty_adjustments::shop_id))),
                )
                .filter(loyalty_adjustments::shop_id.eq(shop.as_str()))
                .select((PointsAdjustmentRow::as_select(), api_keys::label))
                .order((
                    loyalty_adjustments::created_at_ms.desc(),
                    loyalty_adjustments::id.desc(),
                ))
                .into_boxed();
            if let Some(before) = &query.before {
                // Strictly after the cursor's line in list order. The first bound is implied by
                // the second, but only it is an index range (see the orders list).
                let (at, id) = (before.at.millis(), before.id.as_str());
                writes = writes
                    .filter(api_writes::created_at_ms.le(at))
                    .filter(
                        api_writes::created_at_ms
                            .lt(at)
                            .or(api_writes::created_at_ms.eq(at).and(api_writes::id.lt(id))),
                    );
                points = points
                    .filter(loyalty_adjustments::created_at_ms.le(at))
                    .filter(
                        loyalty_adjustments::created_at_ms.lt(at).or(
                            loyalty_adjustments::created_at_ms
                                .eq(at)
                                .and(loyalty_adjustments::id.lt(id)),
                        ),
                    );
            }
            let overfetch = query.limit.get() + 1;
            let writes: Vec<WriteLine> = first_rows(writes, overfetch).load(&mut *self).await?;
            let points: Vec<PointsLine> = first_rows(points, overfetch).load(&mut *self).await?;
            Ok((writes, points))
        }
    }
}

#[async_trait]
impl ApiWriteLog for Database {
    async fn list_api_writes(
        &self,
        shop: &ShopId,
        query: &ApiWriteQuery,
    ) -> Result<Vec<ApiWrite>, StoreError> {
        let (writes, points) = with_conn!(self, |conn| conn.load_api_writes(shop, query).await)?;
        Ok(merged(query, writes, points)?)
    }
}

/// Both kinds as domain lines, merged: the first `limit + 1`, newest first.
fn merged(
    query: &ApiWriteQuery,
    writes: Vec<WriteLine>,
    points: Vec<PointsLine>,
) -> Result<Vec<ApiWrite>, DbError> {
    let writes = writes
        .into_iter()
        .map(|(row, label)| row.into_domain(label))
        .collect::<Result<Vec<_>, _>>()?;
    let points = points
        .into_iter()
        .map(|(row, label)| row.into_api_write(label))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(merge_newest_first(writes, points, query.limit.get() + 1))
}
