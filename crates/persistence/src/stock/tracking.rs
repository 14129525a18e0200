//! One switch of a variant's stock tracking, inside the caller's transaction.
//!
//! Order of work: (a) find the shop's variant, its product and its tracking (the adjustment's
//! own statement); unknown, or already as asked, ends here with nothing written; (b) move the
//! product's `updated_at` forward, which locks the product's row whatever its time; (c) set the
//! variant's tracking, on condition that it still differs; (d) set the product's `track_stock`
//! to whether any of its variants is tracked now; (e) record the switch.
//!
//! **Concurrent switches.** On SQLite the transaction is `BEGIN IMMEDIATE` (see
//! `in_transaction!`): they run one after the other. On PostgreSQL two switches of one variant
//! may both find it unswitched in (a); the second waits for the first's product lock in (b),
//! then its conditional update in (c) changes no row: it ends as [`SwitchFailure::AlreadySo`],
//! which rolls back its (b), so that "already so" writes nothing, as when found in (a). A
//! switch of a sibling variant waits in (b) as well, so (d) reads every sibling's committed
//! tracking.
//!
//! Row locks are taken in the adjustment's and the import's order, the product before its
//! variant: no deadlock cycle with either. (b) locks the product before (d) writes it again
//! after the variant, which must not be the first to lock it.
//!
//! Both stamps move past their last value (`sql/stamp.rs`), as an adjustment's do, and the
//! `stock.updated` carries the stock entry's.

use diesel::dsl::exists;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::{ProductId, ShopId, VariantId};
use shop_domain::webhook::StockCause;
use shop_ports::port::{TrackingCommand, TrackingOutcome};

use super::adjust::AdjustQueries;
use crate::catalogue::CatalogueQueries;
use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::rows::SwitchRow;
use crate::schema::{products, tracking_switches, variants};
use crate::sql::kept_prepared::KeptPrepared;
use crate::sql::stamp::stamp_after;
use crate::webhooks::outbox::{self, OutboxQueries, OutboxWrite, StockChange};

/// Why a switch's transaction did not commit.
pub(crate) enum SwitchFailure {
    /// A concurrent switch made the same change first: roll back, answer `AlreadySo`.
    AlreadySo,
    Db(DbError),
}

impl From<DbError> for SwitchFailure {
    fn from(error: DbError) -> Self {
        Self::Db(error)
    }
}

impl From<diesel::result::Error> for SwitchFailure {
    fn from(error: diesel::result::Error) -> Self {
        Self::Db(error.into())
    }
}

/// The statements of one switch, implemented for both backends' connections.
pub(crate) trait TrackingQueries {
    /// Stamps the product's `updated_at` after its last (`sql/stamp.rs`), which locks its row
    /// on PostgreSQL until the transaction ends.
    fn lock_product(
        &mut self,
        shop: &ShopId,
        product: &str,
        at: Timestamp,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// Sets the variant's tracking if it differs, stamping its stock entry after its last
    /// stamp, as an adjustment does; the stamp, if it did.
    fn set_variant_tracking(
        &mut self,
        shop: &ShopId,
        variant: &VariantId,
        tracked: bool,
        at: Timestamp,
    ) -> impl Future<Output = Result<Option<Timestamp>, DbError>> + Send;

    /// Sets the product's `track_stock` to whether any of its variants is tracked.
    fn refresh_product_tracking(
        &mut self,
        shop: &ShopId,
        product: &str,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    fn insert_switch(
        &mut self,
        row: &SwitchRow,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl_for_each_backend! {
    impl TrackingQueries {
        async fn lock_product(
            &mut self,
            shop: &ShopId,
            product: &str,
            at: Timestamp,
        ) -> Result<(), DbError> {
            let later = stamp_after!(products::updated_at_ms, at);
            let update = diesel::update(products::table)
                .filter(products::shop_id.eq(shop.as_str()))
                .filter(products::id.eq(product))
                .set(products::updated_at_ms.eq(later));
            let updated = KeptPrepared(update).execute(self).await?;
            if updated == 0 {
                // Found with its variant in this transaction just before; never deleted.
                return Err(DbError::Invariant(format!(
                    "product {product} vanished during a switch of tracking"
                )));
            }
            Ok(())
        }

        async fn set_variant_tracking(
            &mut self,
            shop: &ShopId,
            variant: &VariantId,
            tracked: bool,
            at: Timestamp,
        ) -> Result<Option<Timestamp>, DbError> {
            let update = diesel::update(variants::table)
                .filter(variants::shop_id.eq(shop.as_str()))
                .filter(variants::id.eq(variant.as_str()))
                .filter(variants::track_stock.ne(tracked))
                .set((
                    variants::track_stock.eq(tracked),
                    variants::stock_updated_at_ms.eq(stamp_after!(variants::stock_updated_at_ms, at)),
                ))
                .returning(variants::stock_updated_at_ms);
            let stamped: Option<i64> = KeptPrepared(update).get_result(self).await.optional()?;
            Ok(stamped.map(Timestamp::from_millis))
        }

        async fn refresh_product_tracking(
            &mut self,
            shop: &ShopId,
            product: &str,
        ) -> Result<(), DbError> {
            // The product's variants, by `variants_product_id_position`. Deliberately no
            // condition on `shop_id` here (the outer WHERE has it, and a variant is always in
            // its product's shop: the import writes it so): without ANALYZE statistics, which
            // take any equality on shop_id for about ten rows, SQLite would walk the whole
            // shop's variants by (shop_id, id) instead.
            let tracked_variant = variants::table
                .filter(variants::product_id.eq(product))
                .filter(variants::track_stock.eq(true))
                .select(variants::id);
            let update = diesel::update(products::table)
                .filter(products::shop_id.eq(shop.as_str()))
                .filter(products::id.eq(product))
                .set(products::track_stock.eq(exists(tracked_variant)));
            KeptPrepared(update).execute(self).await?;
            Ok(())
        }

        async fn insert_switch(&mut self, row: &SwitchRow) -> Result<(), DbError> {
            let insert = diesel::insert_into(tracking_switches::table).values(row);
            KeptPrepared(insert).execute(self).await?;
            Ok(())
        }
    }
}

/// The whole switch, on a connection already inside the transaction.
pub(crate) async fn switch<C>(
    conn: &mut C,
    command: &TrackingCommand,
    outbox: Option<&OutboxWrite<'_>>,
) -> Result<TrackingOutcome, SwitchFailure>
where
    C: AdjustQueries + TrackingQueries + CatalogueQueries + OutboxQueries + Send,
{
    let shop = &command.shop;
    let product_id = match conn.find_variant(shop, &command.variant_id).await? {
        None => return Ok(TrackingOutcome::VariantNotFound),
        Some(found) if found.tracked == command.tracked => return Ok(TrackingOutcome::AlreadySo),
        Some(found) => found.product_id,
    };
    conn.lock_product(shop, &product_id, command.at).await?;
    let Some(stamped) = conn
        .set_variant_tracking(shop, &command.variant_id, command.tracked, command.at)
        .await?
    else {
        return Err(SwitchFailure::AlreadySo);
    };
    conn.refresh_product_tracking(shop, &product_id).await?;
    let row = SwitchRow {
        id: command.switch_id.as_str().to_owned(),
        shop_id: shop.as_str().to_owned(),
        variant_id: command.variant_id.as_str().to_owned(),
        product_id,
        tracked: command.tracked,
        owner_id: command.owner_id.as_str().to_owned(),
        created_at_ms: command.at.millis(),
    };
    conn.insert_switch(&row).await?;
    if let Some(outbox) = outbox {
        let product = ProductId::parse(&*row.product_id)
            .map_err(|_| DbError::corrupt("variants", command.variant_id.as_str(), "product id"))?;
        let change = StockChange {
            shop,
            product: &product,
            variant: &command.variant_id,
            at: stamped,
        };
        outbox::append_stock_change(conn, outbox, change, StockCause::Tracking).await?;
    }
    Ok(TrackingOutcome::Switched)
}
