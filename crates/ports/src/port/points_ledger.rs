use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_domain::id::{ClientId, LoyaltyAdjustmentId, ShopId};
use shop_domain::loyalty::{PointsAdjustment, PointsDelta, PointsReason, PointsRefusal};

use crate::StoreError;
use crate::port::IdempotencyClaim;

/// Everything one adjustment of a client's points writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointsCommand {
    pub shop: ShopId,
    pub client_id: ClientId,
    pub delta: PointsDelta,
    pub reason: PointsReason,
    /// The API key that makes the adjustment, recorded with it.
    pub key_prefix: KeyPrefix,
    /// The id the adjustment gets if it applies.
    pub adjustment_id: LoyaltyAdjustmentId,
    pub at: Timestamp,
    pub idempotency: Option<IdempotencyClaim>,
}

/// What one adjustment of points came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PointsResult {
    Applied(PointsAdjustment),
    /// The shop has no such client (another shop's is not found either).
    ClientNotFound,
    /// The balance refused it (`PointsBalance::after`): nothing changed.
    Refused(PointsRefusal),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PointsOutcome {
    /// Decided now (and, with a key, recorded for replays).
    Fresh(PointsResult),
    /// The key was used before with the same request: its first result, nothing changed.
    Replayed(PointsResult),
    /// The key was used before with a different request (of any operation): nothing changed.
    KeyReused,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait PointsLedger: Send + Sync {
    /// In ONE transaction that concurrent adjustments of the client cannot interleave with (no
    /// lost update): replay or refuse per the idempotency record if there is a live one;
    /// otherwise find the shop's client (`ClientNotFound`), apply `PointsBalance::after` to
    /// its balance as it is at that moment (`Refused`, nothing written), move its tier's
    /// `achievedAt` to `at` when `tier_moved` says so, move its `updated_at` forward to `at`,
    /// keep the adjustment, append its `client.updated` event, and record the result under the
    /// idempotency key. A concurrent request with the same key waits for the first and
    /// replays it: it is never applied twice.
    async fn adjust_points(&self, command: &PointsCommand) -> Result<PointsOutcome, StoreError>;
}
