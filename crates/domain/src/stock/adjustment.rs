//! `POST /stock/adjustments`: a signed change of one variant's stock, with its reason.

use sha2::{Digest, Sha256};

use crate::Timestamp;
use crate::api_key::KeyPrefix;
use crate::id::{MovementId, ProductId, VariantId};

pub const MAX_ABS_QUANTITY: i64 = 1_000_000;
pub const MAX_REASON_LEN: usize = 500;

/// Every stock (and low-stock threshold) stays within ±10^12: far beyond any shelf, within
/// both databases' 64-bit integers with room for any delta, and exact in a JavaScript client
/// (whose numbers are exact up to 2^53, about 9·10^15).
pub const MAX_ABS_STOCK: i64 = 1_000_000_000_000;

// A stock and a delta, or their sum, stay exact in a JavaScript number.
const _: () = assert!(MAX_ABS_STOCK + MAX_ABS_QUANTITY < 1 << 53);

/// Whether `stock` is a stock the service keeps.
pub const fn stock_in_range(stock: i64) -> bool {
    -MAX_ABS_STOCK <= stock && stock <= MAX_ABS_STOCK
}

/// A non-zero change of at most 1,000,000 units either way. Stock may go below zero, as at a
/// till that sells what the system did not know was there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StockDelta(i64);

impl StockDelta {
    pub fn new(quantity: i64) -> Result<Self, &'static str> {
        if quantity == 0 {
            Err("must not be zero")
        } else if quantity.unsigned_abs() > MAX_ABS_QUANTITY.unsigned_abs() {
            Err("must be between -1000000 and 1000000")
        } else {
            Ok(Self(quantity))
        }
    }

    pub const fn get(self) -> i64 {
        self.0
    }
}

/// A free-text justification: trimmed, 1 to 500 characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdjustmentReason(String);

impl AdjustmentReason {
    pub fn parse(text: &str) -> Result<Self, &'static str> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            Err("must not be empty")
        } else if trimmed.chars().count() > MAX_REASON_LEN {
            Err("must be at most 500 characters")
        } else {
            Ok(Self(trimmed.to_owned()))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The variant an adjustment names, as sent: not empty. An id outside the id alphabet is
/// valid here: it names no variant, and the adjustment finds none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestedVariant(String);

impl RequestedVariant {
    pub fn parse(text: &str) -> Result<Self, &'static str> {
        if text.is_empty() {
            Err("must not be empty")
        } else {
            Ok(Self(text.to_owned()))
        }
    }
}

/// One invalid field of an adjustment request (of stock, or of a client's points).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdjustmentProblem {
    pub field: &'static str,
    pub message: &'static str,
}

/// A valid adjustment request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdjustmentRequest {
    /// The variant id as sent.
    pub requested_variant: String,
    /// `None` when the id cannot exist (outside the id alphabet): such a variant is simply
    /// not found, exactly like an unknown one.
    pub variant_id: Option<VariantId>,
    pub delta: StockDelta,
    pub reason: AdjustmentReason,
}

impl AdjustmentRequest {
    /// The request of three valid fields.
    pub fn new(variant: RequestedVariant, delta: StockDelta, reason: AdjustmentReason) -> Self {
        let RequestedVariant(requested_variant) = variant;
        Self {
            variant_id: VariantId::parse(&requested_variant).ok(),
            requested_variant,
            delta,
            reason,
        }
    }

    /// Checks every field and reports every problem, not only the first.
    pub fn parse(
        variant_id: &str,
        quantity: i64,
        reason: &str,
    ) -> Result<Self, Vec<AdjustmentProblem>> {
        let mut problems = Vec::new();
        let variant = RequestedVariant::parse(variant_id).map_err(|message| {
            problems.push(AdjustmentProblem {
                field: "variantId",
                message,
            })
        });
        let delta = StockDelta::new(quantity).map_err(|message| {
            problems.push(AdjustmentProblem {
                field: "quantity",
                message,
            })
        });
        let reason = AdjustmentReason::parse(reason).map_err(|message| {
            problems.push(AdjustmentProblem {
                field: "reason",
                message,
            })
        });
        match (variant, delta, reason) {
            (Ok(variant), Ok(delta), Ok(reason)) => Ok(Self::new(variant, delta, reason)),
            _ => Err(problems),
        }
    }

    /// What identifies "the same request" for idempotency: the parsed values, so that field
    /// order, spacing or a trimmed reason do not count as a different body.
    pub fn fingerprint(&self) -> String {
        let digest = Sha256::new()
            .chain_update(self.requested_variant.as_bytes())
            .chain_update([0])
            .chain_update(self.delta.get().to_be_bytes())
            .chain_update(self.reason.as_str())
            .finalize();
        crate::hex::to_lower_hex(&digest)
    }
}

/// The answer to an applied adjustment (spec §2 Stock adjustment result).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StockAdjustment {
    pub variant_id: VariantId,
    pub product_id: ProductId,
    pub previous_stock: i64,
    pub new_stock: i64,
    pub delta: i64,
    pub movement_id: MovementId,
    pub applied_at: Timestamp,
}

/// What an adjustment came to. Rejections are results too: an idempotent replay returns them
/// as first answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AdjustmentResult {
    Applied(StockAdjustment),
    VariantNotFound,
    NotTracked,
    /// The stock would leave ±[`MAX_ABS_STOCK`]: nothing changed.
    OutOfRange,
}

/// The traceable record of one adjustment (StockMovement), listed by `shop-api stock
/// movements`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StockMovement {
    pub id: MovementId,
    pub variant_id: VariantId,
    pub product_id: ProductId,
    pub delta: i64,
    pub previous_stock: i64,
    pub new_stock: i64,
    pub reason: String,
    pub api_key_prefix: KeyPrefix,
    pub created_at: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantity_bounds() {
        assert!(
            StockDelta::new(1).is_ok()
                && StockDelta::new(-1_000_000).is_ok()
                && StockDelta::new(1_000_000).is_ok()
        );
        assert_eq!(StockDelta::new(0), Err("must not be zero"));
        assert!(
            StockDelta::new(1_000_001).is_err()
                && StockDelta::new(-1_000_001).is_err()
                && StockDelta::new(i64::MIN).is_err()
        );
    }

    #[test]
    fn stock_stays_within_ten_to_the_twelfth_either_way() {
        assert!(stock_in_range(MAX_ABS_STOCK) && stock_in_range(-MAX_ABS_STOCK));
        assert!(!stock_in_range(MAX_ABS_STOCK + 1) && !stock_in_range(-MAX_ABS_STOCK - 1));
        assert!(!stock_in_range(i64::MIN) && stock_in_range(0));
    }

    #[test]
    fn reason_is_trimmed_and_bounded() {
        assert_eq!(
            AdjustmentReason::parse("  inventaire ").unwrap().as_str(),
            "inventaire"
        );
        assert!(AdjustmentReason::parse("   ").is_err());
        assert!(AdjustmentReason::parse(&"é".repeat(500)).is_ok());
        assert!(AdjustmentReason::parse(&"é".repeat(501)).is_err());
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let problems = AdjustmentRequest::parse("", 0, " ").unwrap_err();
        let fields: Vec<_> = problems.iter().map(|p| p.field).collect();
        assert_eq!(fields, ["variantId", "quantity", "reason"]);
    }

    #[test]
    fn an_impossible_variant_id_is_valid_but_can_match_nothing() {
        let request = AdjustmentRequest::parse("no/such id", 2, "x").unwrap();
        assert_eq!(request.variant_id, None);
        assert_eq!(request.requested_variant, "no/such id");
    }

    #[test]
    fn fingerprints_ignore_spacing_but_not_values() {
        let a = AdjustmentRequest::parse("v1", 5, "casse").unwrap();
        let b = AdjustmentRequest::parse("v1", 5, "  casse ").unwrap();
        let c = AdjustmentRequest::parse("v1", -5, "casse").unwrap();
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_ne!(a.fingerprint(), c.fingerprint());
        assert_eq!(a.fingerprint().len(), 64);
    }
}
