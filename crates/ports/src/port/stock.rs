use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_domain::id::{MovementId, ShopId, VariantId};
use shop_domain::stock::{
    AdjustmentReason, AdjustmentResult, IdempotencyKey, StockDelta, StockEntry, StockListQuery,
    StockMovement,
};

use crate::StoreError;

/// The caller's idempotency key for one adjustment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdempotencyClaim {
    pub key: IdempotencyKey,
    /// `AdjustmentRequest::fingerprint`: what makes a replay "the same request".
    pub fingerprint: String,
    /// Records created before this instant are expired: the key is free again.
    pub expired_before: Timestamp,
}

/// Everything one adjustment writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdjustmentCommand {
    pub shop: ShopId,
    /// `None` for an id that cannot exist: the result is `VariantNotFound`.
    pub variant_id: Option<VariantId>,
    pub delta: StockDelta,
    pub reason: AdjustmentReason,
    /// The API key that makes the adjustment, recorded on the movement.
    pub key_prefix: KeyPrefix,
    /// The id the movement gets if the adjustment applies.
    pub movement_id: MovementId,
    pub at: Timestamp,
    pub idempotency: Option<IdempotencyClaim>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AdjustmentOutcome {
    /// Decided now (and, with a key, recorded for replays).
    Fresh(AdjustmentResult),
    /// The key was used before with the same request: its first result, nothing changed.
    Replayed(AdjustmentResult),
    /// The key was used before with a different request: nothing changed.
    KeyReused,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait StockRepository: Send + Sync {
    /// Up to `query.limit + 1` stock entries of the shop, by ascending variant id.
    async fn list_stock(
        &self,
        shop: &ShopId,
        query: &StockListQuery,
    ) -> Result<Vec<StockEntry>, StoreError>;

    /// In ONE transaction that concurrent adjustments cannot interleave with (no lost update):
    /// replay or refuse per the idempotency record if there is a live one; otherwise find the
    /// shop's variant (`VariantNotFound`), refuse an untracked one (`NotTracked`), add the delta
    /// to its stock, insert the movement, move the product's `updated_at` forward to `at` (the
    /// product carries `updatedAt` for its variants too), and record the result under the
    /// idempotency key. A concurrent request with the
    /// same key waits for the first and replays it: it is never applied twice.
    async fn adjust_stock(
        &self,
        command: &AdjustmentCommand,
    ) -> Result<AdjustmentOutcome, StoreError>;

    /// The shop's movements, newest first, optionally for one variant.
    async fn list_movements(
        &self,
        shop: &ShopId,
        variant: Option<VariantId>,
    ) -> Result<Vec<StockMovement>, StoreError>;
}
