//! `LoyaltyRepository`: a shop's tiers, and a client's latest lottery tickets and spins.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::id::{ClientId, ShopId};
use shop_domain::loyalty::{LotteryTicket, LoyaltyTier, Spin};
use shop_ports::StoreError;
use shop_ports::port::{LoyaltyRepository, ReadFrom};

use crate::database::{Database, impl_for_each_backend, with_read_conn};
use crate::error::DbError;
use crate::rows::{SpinRow, TicketRow, TierRow};
use crate::schema::{lottery_tickets, loyalty_tiers, spins};
use crate::sql::first_rows::first_rows;

/// The shop's tiers, read by the summary and inside an adjustment of points's transaction.
pub(crate) trait TierQueries {
    /// Every tier of the shop, by threshold then id.
    fn load_tiers(
        &mut self,
        shop: &ShopId,
    ) -> impl Future<Output = Result<Vec<LoyaltyTier>, DbError>> + Send;
}

impl_for_each_backend! {
    impl TierQueries {
        async fn load_tiers(&mut self, shop: &ShopId) -> Result<Vec<LoyaltyTier>, DbError> {
            loyalty_tiers::table
                .filter(loyalty_tiers::shop_id.eq(shop.as_str()))
                .order((loyalty_tiers::min_points_lifetime.asc(), loyalty_tiers::id.asc()))
                .select(TierRow::as_select())
                .load(self)
                .await?
                .into_iter()
                .map(TierRow::into_domain)
                .collect()
        }
    }
}

#[async_trait]
impl LoyaltyRepository for Database {
    async fn tiers(&self, shop: &ShopId, from: ReadFrom) -> Result<Vec<LoyaltyTier>, StoreError> {
        Ok(with_read_conn!(self, from, |conn| conn
            .load_tiers(shop)
            .await)?)
    }

    async fn recent_tickets(
        &self,
        shop: &ShopId,
        client: &ClientId,
        limit: usize,
        from: ReadFrom,
    ) -> Result<Vec<LotteryTicket>, StoreError> {
        let rows = with_read_conn!(self, from, |conn| {
            let newest_first = lottery_tickets::table
                .filter(lottery_tickets::shop_id.eq(shop.as_str()))
                .filter(lottery_tickets::client_id.eq(client.as_str()))
                .order((
                    lottery_tickets::created_at_ms.desc(),
                    lottery_tickets::id.desc(),
                ))
                .select(TicketRow::as_select());
            first_rows(newest_first, limit).load(conn).await
        })?;
        // The statement may read a few more than asked for (first_rows.rs).
        Ok(rows
            .into_iter()
            .take(limit)
            .map(TicketRow::into_domain)
            .collect::<Result<_, DbError>>()?)
    }

    async fn recent_spins(
        &self,
        shop: &ShopId,
        client: &ClientId,
        limit: usize,
        from: ReadFrom,
    ) -> Result<Vec<Spin>, StoreError> {
        let rows = with_read_conn!(self, from, |conn| {
            let newest_first = spins::table
                .filter(spins::shop_id.eq(shop.as_str()))
                .filter(spins::client_id.eq(client.as_str()))
                .order((spins::created_at_ms.desc(), spins::id.desc()))
                .select(SpinRow::as_select());
            first_rows(newest_first, limit).load(conn).await
        })?;
        // The statement may read a few more than asked for (first_rows.rs).
        Ok(rows
            .into_iter()
            .take(limit)
            .map(SpinRow::into_domain)
            .collect::<Result<_, DbError>>()?)
    }
}
