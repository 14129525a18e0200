//! The console's activity list: the shop's stock movements and tracking switches, newest first.
//!
//! Two keyset queries, one per kind, each walking its own `(shop_id, created_at_ms, id)` index
//! from the cursor and stopping at `limit + 1` lines or a few more (`first_rows.rs`);
//! `merge_newest_first` keeps the first `limit + 1` of both. Each line comes with its names in
//! the same query: a movement joined with its API key (the label) and a switch with its owner
//! (the e-mail), both with the variant and its product, every join matched on the shop too.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::id::ShopId;
use shop_domain::owner::OwnerEmail;
use shop_domain::stock::{ActivityQuery, StockActivity};
use shop_domain::timeline::merge_newest_first;

use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::rows::{MovementRow, SwitchRow, VariantNameRow};
use crate::schema::{api_keys, owners, products, stock_movements, tracking_switches, variants};
use crate::sql::first_rows::first_rows;

type MovementLine = (MovementRow, String, VariantNameRow);
type SwitchLine = (SwitchRow, String, VariantNameRow);

pub(crate) trait ActivityQueries {
    /// `query.limit + 1` of each kind, or a few more (`first_rows.rs`), each newest first,
    /// strictly older than `query.before`.
    fn load_activity(
        &mut self,
        shop: &ShopId,
        query: &ActivityQuery,
    ) -> impl Future<Output = Result<(Vec<MovementLine>, Vec<SwitchLine>), DbError>> + Send;
}

impl_for_each_backend! {
    impl ActivityQueries {
        async fn load_activity(
            &mut self,
            shop: &ShopId,
            query: &ActivityQuery,
        ) -> Result<(Vec<MovementLine>, Vec<SwitchLine>), DbError> {
            let mut movements = stock_movements::table
                .inner_join(
                    api_keys::table.on(api_keys::prefix
                        .eq(stock_movements::api_key_prefix)
                        .and(api_keys::shop_id.eq(stock_movements::shop_id))),
                )
                .inner_join(
                    variants::table.on(variants::id
                        .eq(stock_movements::variant_id)
                        .and(variants::shop_id.eq(stock_movements::shop_id))),
                )
                .inner_join(
                    products::table.on(products::id
                        .eq(variants::product_id)
                        .and(products::shop_id.eq(variants::shop_id))),
                )
                .filter(stock_movements::shop_id.eq(shop.as_str()))
                .select((
                    MovementRow::as_select(),
                    api_keys::label,
                    (products::name, variants::label, variants::sku),
                ))
                .order((
                    stock_movements::created_at_ms.desc(),
                    stock_movements::id.desc(),
                ))
                .into_boxed();
            let mut switches = tracking_switches::table
                .inner_join(
                    owners::table.on(owners::id
                        .eq(tracking_switches::owner_id)
                        .and(owners::shop_id.eq(tracking_switches::shop_id))),
                )
                .inner_join(
                    variants::table.on(variants::id
                        .eq(tracking_switches::variant_id)
                        .and(variants::shop_id.eq(tracking_switches::shop_id))),
                )
                .inner_join(
                    products::table.on(products::id
                        .eq(variants::product_id)
                        .and(products::shop_id.eq(variants::shop_id))),
                )
                .filter(tracking_switches::shop_id.eq(shop.as_str()))
                .select((
                    SwitchRow::as_select(),
                    owners::email,
                    (products::name, variants::label, variants::sku),
                ))
                .order((
                    tracking_switches::created_at_ms.desc(),
                    tracking_switches::id.desc(),
                ))
                .into_boxed();
            if let Some(before) = &query.before {
                // Strictly after the cursor's line in list order. The first bound is implied by
                // the second, but only it is an index range (see the orders list).
                let (at, id) = (before.at.millis(), before.id.as_str());
                movements = movements
                    .filter(stock_movements::created_at_ms.le(at))
                    .filter(
                        stock_movements::created_at_ms
                            .lt(at)
                            .or(stock_movements::created_at_ms
                                .eq(at)
                                .and(stock_movements::id.lt(id))),
                    );
                switches = switches
                    .filter(tracking_switches::created_at_ms.le(at))
                    .filter(
                        tracking_switches::created_at_ms
                            .lt(at)
                            .or(tracking_switches::created_at_ms
                                .eq(at)
                                .and(tracking_switches::id.lt(id))),
                    );
            }
            let overfetch = query.limit.get() + 1;
            let movements: Vec<MovementLine> =
                first_rows(movements, overfetch).load(&mut *self).await?;
            let switches: Vec<SwitchLine> =
                first_rows(switches, overfetch).load(&mut *self).await?;
            Ok((movements, switches))
        }
    }
}

/// Both kinds as domain lines, merged: the first `limit + 1`, newest first.
pub(super) fn merged(
    query: &ActivityQuery,
    movements: Vec<MovementLine>,
    switches: Vec<SwitchLine>,
) -> Result<Vec<StockActivity>, DbError> {
    let movements = movements
        .into_iter()
        .map(|(movement, key_label, variant)| {
            Ok(StockActivity::Adjustment {
                movement: movement.into_domain()?,
                key_label,
                variant: variant.into_domain(),
            })
        })
        .collect::<Result<Vec<_>, DbError>>()?;
    let switches = switches
        .into_iter()
        .map(|(switch, email, variant)| {
            let owner = OwnerEmail::parse(&email)
                .map_err(|e| DbError::corrupt("owners", &switch.owner_id, e))?;
            Ok(StockActivity::TrackingSwitch {
                switch: switch.into_domain()?,
                owner,
                variant: variant.into_domain(),
            })
        })
        .collect::<Result<Vec<_>, DbError>>()?;
    Ok(merge_newest_first(
        movements,
        switches,
        query.limit.get() + 1,
    ))
}
