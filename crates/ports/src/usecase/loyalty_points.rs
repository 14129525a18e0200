//! `POST /api/v2/clients/{id}/loyalty/adjustments` (issue 35): an integration credits or
//! debits a client's points, safe to retry under an `Idempotency-Key`.

use std::sync::Arc;

use shop_domain::id::{ClientId, LoyaltyAdjustmentId};
use shop_domain::loyalty::{PointsAdjustment, PointsAdjustmentRequest, PointsRefusal};
use shop_domain::stock::{IDEMPOTENCY_RETENTION_MILLIS, IdempotencyKey};

use super::Principal;
use crate::StoreError;
use crate::port::{
    Clock, IdGenerator, IdempotencyClaim, PointsCommand, PointsLedger, PointsOutcome, PointsResult,
};

/// An adjustment that applied, now or when its idempotency key was first used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointsAdjusted {
    pub adjustment: PointsAdjustment,
    /// The first answer to the same `Idempotency-Key`, repeated: nothing changed this time.
    pub replayed: bool,
}

/// Why an adjustment of points changed nothing. A refusal is an answer too, recorded under
/// the idempotency key: `replayed` says that it repeats the first answer to that key.
#[derive(Debug, thiserror::Error)]
pub enum PointsError {
    /// The shop has no such client: unknown or another shop's.
    #[error("the shop has no such client")]
    ClientNotFound { replayed: bool },
    /// The balance refused it (`PointsBalance::after`).
    #[error("{refusal}")]
    Refused {
        refusal: PointsRefusal,
        replayed: bool,
    },
    /// The idempotency key was used, within its retention, for a different request.
    #[error("the idempotency key was used with a different request")]
    KeyReused,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl PointsError {
    /// Whether this refusal repeats the first answer to its idempotency key.
    pub const fn replayed(&self) -> bool {
        match self {
            Self::ClientNotFound { replayed } | Self::Refused { replayed, .. } => *replayed,
            Self::KeyReused | Self::Store(_) => false,
        }
    }
}

pub struct PointsKeeper {
    ledger: Arc<dyn PointsLedger>,
    ids: Arc<dyn IdGenerator>,
    clock: Arc<dyn Clock>,
}

impl PointsKeeper {
    pub fn new(
        ledger: Arc<dyn PointsLedger>,
        ids: Arc<dyn IdGenerator>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self { ledger, ids, clock }
    }

    /// Applies (or replays) one adjustment of the client's points for the caller's shop,
    /// recording the caller's key.
    pub async fn adjust(
        &self,
        caller: &Principal,
        client: ClientId,
        request: PointsAdjustmentRequest,
        idempotency_key: Option<IdempotencyKey>,
    ) -> Result<PointsAdjusted, PointsError> {
        let at = self.clock.now();
        let idempotency = idempotency_key.map(|key| IdempotencyClaim {
            key,
            fingerprint: request.fingerprint(&client),
            expired_before: at.plus_millis(-IDEMPOTENCY_RETENTION_MILLIS),
        });
        let adjustment_id = LoyaltyAdjustmentId::parse(format!("lpa_{}", self.ids.new_id()))
            .map_err(StoreError::failure)?;
        let command = PointsCommand {
            shop: caller.shop.id.clone(),
            client_id: client,
            delta: request.delta,
            reason: request.reason,
            key_prefix: caller.key_prefix.clone(),
            adjustment_id,
            at,
            idempotency,
        };
        answer(self.ledger.adjust_points(&command).await?)
    }
}

/// The store's outcome as the use case's answer.
fn answer(outcome: PointsOutcome) -> Result<PointsAdjusted, PointsError> {
    let (result, replayed) = match outcome {
        PointsOutcome::Fresh(result) => (result, false),
        PointsOutcome::Replayed(result) => (result, true),
        PointsOutcome::KeyReused => return Err(PointsError::KeyReused),
    };
    match result {
        PointsResult::Applied(adjustment) => Ok(PointsAdjusted {
            adjustment,
            replayed,
        }),
        PointsResult::ClientNotFound => Err(PointsError::ClientNotFound { replayed }),
        PointsResult::Refused(refusal) => Err(PointsError::Refused { refusal, replayed }),
    }
}

#[cfg(test)]
mod tests;
