//! What `StockKeeper::adjust` answers: the applied adjustment, or why nothing changed.

use shop_domain::stock::{AdjustmentResult, StockAdjustment};

use crate::StoreError;
use crate::port::AdjustmentOutcome;

/// An adjustment that applied, now or when its idempotency key was first used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adjusted {
    pub adjustment: StockAdjustment,
    /// The first answer to the same `Idempotency-Key`, repeated: nothing changed this time.
    pub replayed: bool,
}

/// Why an adjustment changed nothing. A refusal is an answer too, recorded under the
/// idempotency key: `replayed` says that it repeats the first answer to that key.
#[derive(Debug, thiserror::Error)]
pub enum AdjustError {
    /// The shop has no such variant: unknown, another shop's, or an id that cannot exist.
    #[error("the shop has no such variant")]
    VariantNotFound { replayed: bool },
    #[error("the variant's stock is not tracked")]
    NotTracked { replayed: bool },
    /// The stock would leave ±`MAX_ABS_STOCK`.
    #[error("the adjustment would take the stock out of range")]
    OutOfRange { replayed: bool },
    /// The idempotency key was used, within its retention, for a different request.
    #[error("the idempotency key was used with a different request")]
    KeyReused,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl AdjustError {
    /// Whether this refusal repeats the first answer to its idempotency key.
    pub const fn replayed(&self) -> bool {
        match self {
            Self::VariantNotFound { replayed }
            | Self::NotTracked { replayed }
            | Self::OutOfRange { replayed } => *replayed,
            Self::KeyReused | Self::Store(_) => false,
        }
    }
}

/// The store's outcome as the use case's answer.
pub(super) fn answer(outcome: AdjustmentOutcome) -> Result<Adjusted, AdjustError> {
    let (result, replayed) = match outcome {
        AdjustmentOutcome::Fresh(result) => (result, false),
        AdjustmentOutcome::Replayed(result) => (result, true),
        AdjustmentOutcome::KeyReused => return Err(AdjustError::KeyReused),
    };
    match result {
        AdjustmentResult::Applied(adjustment) => Ok(Adjusted {
            adjustment,
            replayed,
        }),
        AdjustmentResult::VariantNotFound => Err(AdjustError::VariantNotFound { replayed }),
        AdjustmentResult::NotTracked => Err(AdjustError::NotTracked { replayed }),
        AdjustmentResult::OutOfRange => Err(AdjustError::OutOfRange { replayed }),
    }
}
