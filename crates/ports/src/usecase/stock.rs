//! `GET /stock`, `POST /stock/adjustments`, the owner's movement list, and the console's
//! tracking switch and activity page.

use std::sync::Arc;

use shop_domain::id::{MovementId, OwnerId, ShopId, TrackingSwitchId, VariantId};
use shop_domain::pagination::{CursorKind, Page};
use shop_domain::stock::{
    ActivityQuery, AdjustmentRequest, IDEMPOTENCY_RETENTION_MILLIS, IdempotencyKey, StockActivity,
    StockEntry, StockListQuery, StockMovement, stock_cursor,
};
use shop_domain::sync::changed_cursor;
use shop_domain::timeline;

use super::{Principal, ReadError};
use crate::StoreError;
use crate::port::{
    AdjustmentCommand, Clock, IdGenerator, IdempotencyClaim, ReadFrom, StockRepository,
    TrackingCommand, TrackingOutcome,
};

mod adjusted;

pub use adjusted::{AdjustError, Adjusted};

pub struct StockKeeper {
    repository: Arc<dyn StockRepository>,
    ids: Arc<dyn IdGenerator>,
    clock: Arc<dyn Clock>,
}

impl StockKeeper {
    pub fn new(
        repository: Arc<dyn StockRepository>,
        ids: Arc<dyn IdGenerator>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            repository,
            ids,
            clock,
        }
    }

    /// One page of the shop's stock, read `from` the database named.
    pub async fn list(
        &self,
        shop: &ShopId,
        query: &StockListQuery,
        from: ReadFrom,
    ) -> Result<Page<StockEntry>, ReadError> {
        let read_started = self.clock.now();
        let rows = self.repository.list_stock(shop, query, from).await?;
        let changed = query.changed.is_some();
        Ok(Page::from_overfetch(rows, query.limit, |entry| {
            if changed {
                changed_cursor(
                    CursorKind::StockChanged,
                    entry.updated_at,
                    entry.variant_id.as_str(),
                )
            } else {
                stock_cursor(&entry.variant_id)
            }
        })
        .read_at(read_started))
    }

    /// Applies (or replays) one adjustment for the caller's shop, recording the caller's key.
    pub async fn adjust(
        &self,
        caller: &Principal,
        request: AdjustmentRequest,
        idempotency_key: Option<IdempotencyKey>,
    ) -> Result<Adjusted, AdjustError> {
        let at = self.clock.now();
        let idempotency = idempotency_key.map(|key| IdempotencyClaim {
            key,
            fingerprint: request.fingerprint(),
            expired_before: at.plus_millis(-IDEMPOTENCY_RETENTION_MILLIS),
        });
        let command = AdjustmentCommand {
            shop: caller.shop.id.clone(),
            variant_id: request.variant_id,
            delta: request.delta,
            reason: request.reason,
            key_prefix: caller.key_prefix.clone(),
            movement_id: MovementId::parse(self.ids.new_id()).map_err(StoreError::failure)?,
            at,
            idempotency,
        };
        adjusted::answer(self.repository.adjust_stock(&command).await?)
    }

    /// Switches a variant's stock tracking, as its shop's owner does in the console (spec §3:
    /// tracking is switched "in the shop's dashboard, not through the API"). The stock and its
    /// movements stay; the API follows at once.
    pub async fn switch_tracking(
        &self,
        shop: &ShopId,
        variant: &VariantId,
        tracked: bool,
        owner: &OwnerId,
    ) -> Result<TrackingOutcome, StoreError> {
        let command = TrackingCommand {
            shop: shop.clone(),
            switch_id: TrackingSwitchId::parse(self.ids.new_id()).map_err(StoreError::failure)?,
            variant_id: variant.clone(),
            tracked,
            owner_id: owner.clone(),
            at: self.clock.now(),
        };
        self.repository.switch_tracking(&command).await
    }

    /// A page of the shop's activity (API adjustments and tracking switches), newest first.
    pub async fn activity(
        &self,
        shop: &ShopId,
        query: &ActivityQuery,
    ) -> Result<Page<StockActivity>, StoreError> {
        let rows = self.repository.list_activity(shop, query).await?;
        Ok(timeline::page(rows, query.limit))
    }

    pub async fn movements(
        &self,
        shop: &ShopId,
        variant: Option<VariantId>,
    ) -> Result<Vec<StockMovement>, StoreError> {
        self.repository.list_movements(shop, variant).await
    }
}

#[cfg(test)]
mod tests;
