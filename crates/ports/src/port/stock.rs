use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_domain::id::{MovementId, OwnerId, ShopId, TrackingSwitchId, VariantId};
use shop_domain::stock::{
    ActivityQuery, AdjustmentReason, AdjustmentResult, IdempotencyKey, StockActivity, StockDelta,
    StockEntry, StockListQuery, StockMovement,
};

use crate::StoreError;
use crate::port::ReadFrom;

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

/// One switch of a variant's tracking, made by a shop's owner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackingCommand {
    pub shop: ShopId,
    /// The id the recorded switch gets if the tracking changes.
    pub switch_id: TrackingSwitchId,
    pub variant_id: VariantId,
    /// The tracking wanted.
    pub tracked: bool,
    pub owner_id: OwnerId,
    pub at: Timestamp,
}

/// What a switch of tracking came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrackingOutcome {
    /// The tracking changed and the switch was recorded.
    Switched,
    /// The variant's tracking already was the one asked for: nothing was written.
    AlreadySo,
    /// The shop has no such variant (another shop's is not found either).
    VariantNotFound,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait StockRepository: Send + Sync {
    /// Up to `query.limit + 1` stock entries of the shop, by ascending variant id, read
    /// `from` the database named.
    async fn list_stock(
        &self,
        shop: &ShopId,
        query: &StockListQuery,
        from: ReadFrom,
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

    /// In ONE transaction: finds the shop's variant (`VariantNotFound`), and unless its
    /// tracking already is `command.tracked` (`AlreadySo`, nothing written): sets it, sets
    /// its product's `track_stock` to whether any of the product's variants is now tracked,
    /// moves the product's `updated_at` forward to `command.at`, and records the switch
    /// (`TrackingSwitch`, with the variant's product). The variant's stock and its movements
    /// are left as they are.
    async fn switch_tracking(
        &self,
        command: &TrackingCommand,
    ) -> Result<TrackingOutcome, StoreError>;

    /// Up to `query.limit + 1` lines of the shop's activity (its stock movements with their
    /// key's label, and its tracking switches with their owner's e-mail, each with the
    /// variant's names), newest first by (time, id), strictly older than `query.before`.
    async fn list_activity(
        &self,
        shop: &ShopId,
        query: &ActivityQuery,
    ) -> Result<Vec<StockActivity>, StoreError>;

    /// The shop's movements, newest first, optionally for one variant.
    async fn list_movements(
        &self,
        shop: &ShopId,
        variant: Option<VariantId>,
    ) -> Result<Vec<StockMovement>, StoreError>;
}
