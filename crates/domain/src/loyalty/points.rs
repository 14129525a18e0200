//! A change of a client's points balance made by an integration
//! (`POST /api/v2/clients/{id}/loyalty/adjustments`, issue 35): its request, the balance
//! rule (a credit raises the three counters, a debit lowers the spendable points only, never
//! below zero) and when the tier moves.

use sha2::{Digest, Sha256};

use crate::Timestamp;
use crate::id::{ClientId, LoyaltyAdjustmentId};
use crate::loyalty::{LoyaltyTier, tier_standing};

/// The largest credit or debit one adjustment makes.
pub const MAX_ABS_POINTS_DELTA: i64 = 1_000_000_000;
/// No counter of a client's points goes past this (10^15): a credit that would is refused,
/// so that a sum never leaves the 64-bit integers of either database.
pub const MAX_POINTS: i64 = 1_000_000_000_000_000;
pub const MAX_POINTS_REASON_LEN: usize = 200;

/// The points one adjustment adds (a credit) or takes (a debit): never zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointsDelta(i64);

impl PointsDelta {
    pub fn new(points: i64) -> Result<Self, &'static str> {
        if points == 0 {
            Err("must not be 0")
        } else if !(-MAX_ABS_POINTS_DELTA..=MAX_ABS_POINTS_DELTA).contains(&points) {
            Err("must be between -1000000000 and 1000000000")
        } else {
            Ok(Self(points))
        }
    }

    pub const fn get(self) -> i64 {
        self.0
    }

    /// What the lifetime counters gain: the points of a credit, nothing for a debit.
    pub const fn credited(self) -> i64 {
        if self.0 > 0 { self.0 } else { 0 }
    }
}

/// Why the points moved, as the integration says it: 1 to 200 characters once trimmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointsReason(String);

impl PointsReason {
    pub fn parse(text: &str) -> Result<Self, &'static str> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            Err("must not be empty")
        } else if trimmed.chars().count() > MAX_POINTS_REASON_LEN {
            Err("must be at most 200 characters")
        } else {
            Ok(Self(trimmed.to_owned()))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A valid adjustment of one client's points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointsAdjustmentRequest {
    pub delta: PointsDelta,
    pub reason: PointsReason,
}

impl PointsAdjustmentRequest {
    /// What makes a retry under one `Idempotency-Key` "the same request": the client, the
    /// points and the reason as parsed. The operation is part of it, so that a key first used
    /// for a stock adjustment is a reuse here, never mistaken for this request.
    pub fn fingerprint(&self, client: &ClientId) -> String {
        let digest = Sha256::new()
            .chain_update(b"loyalty-adjustment\0")
            .chain_update(client.as_str())
            .chain_update([0])
            .chain_update(self.delta.get().to_be_bytes())
            .chain_update(self.reason.as_str())
            .finalize();
        crate::hex::to_lower_hex(&digest)
    }
}

/// A client's three points counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointsBalance {
    /// The points the client may spend.
    pub points: i64,
    pub lifetime: i64,
    pub all_time: i64,
}

/// Why an adjustment cannot apply to a balance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PointsRefusal {
    /// A debit larger than the spendable points.
    #[error("the client has fewer points than the debit")]
    Insufficient,
    /// A credit that would take a counter past [`MAX_POINTS`].
    #[error("the credit would take the client's points past the maximum")]
    OutOfRange,
}

impl PointsBalance {
    /// The balance after `delta`: a credit raises the spendable, lifetime and all-time
    /// points alike; a debit lowers the spendable points only, and never below 0. (A credit
    /// to a balance imported below 0 is no debit: it applies.)
    pub fn after(self, delta: PointsDelta) -> Result<Self, PointsRefusal> {
        let points = self.points + delta.get();
        if delta.get() < 0 && points < 0 {
            return Err(PointsRefusal::Insufficient);
        }
        let credited = delta.credited();
        let balance = Self {
            points,
            lifetime: self.lifetime.saturating_add(credited),
            all_time: self.all_time.saturating_add(credited),
        };
        if [balance.points, balance.lifetime, balance.all_time]
            .iter()
            .any(|counter| *counter > MAX_POINTS)
        {
            return Err(PointsRefusal::OutOfRange);
        }
        Ok(balance)
    }
}

/// Whether lifetime points going from `before` to `after` put the client in another tier
/// of the shop's: its `achievedAt` then becomes the adjustment's time.
pub fn tier_moved(tiers: &[LoyaltyTier], before: i64, after: i64) -> bool {
    let current = |lifetime| tier_standing(tiers, lifetime).current.map(|tier| tier.id);
    current(before) != current(after)
}

/// An adjustment that applied: the API's answer (the row kept of it also names the key).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointsAdjustment {
    pub id: LoyaltyAdjustmentId,
    pub client_id: ClientId,
    pub previous_points: i64,
    pub new_points: i64,
    pub delta: i64,
    pub reason: String,
    pub applied_at: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::color::HexColor;
    use crate::id::TierId;

    fn balance(points: i64, lifetime: i64) -> PointsBalance {
        PointsBalance {
            points,
            lifetime,
            all_time: lifetime + 100,
        }
    }

    fn delta(points: i64) -> PointsDelta {
        PointsDelta::new(points).unwrap()
    }

    #[test]
    fn a_credit_raises_every_counter_and_a_debit_the_spendable_points_only() {
        assert_eq!(
            balance(10, 50).after(delta(5)),
            Ok(PointsBalance {
                points: 15,
                lifetime: 55,
                all_time: 155
            })
        );
        assert_eq!(
            balance(10, 50).after(delta(-10)),
            Ok(PointsBalance {
                points: 0,
                lifetime: 50,
                all_time: 150
            })
        );
    }

    #[test]
    fn a_debit_below_zero_or_a_credit_past_the_maximum_is_refused() {
        assert_eq!(
            balance(10, 50).after(delta(-11)),
            Err(PointsRefusal::Insufficient)
        );
        let rich = PointsBalance {
            points: 0,
            lifetime: MAX_POINTS - 1,
            all_time: MAX_POINTS - 1,
        };
        assert_eq!(rich.after(delta(2)), Err(PointsRefusal::OutOfRange));
        assert!(rich.after(delta(1)).is_ok());
        let imported_negative = balance(-5, 50);
        assert_eq!(imported_negative.after(delta(3)).map(|b| b.points), Ok(-2));
        assert_eq!(
            imported_negative.after(delta(-1)),
            Err(PointsRefusal::Insufficient)
        );
    }

    #[test]
    fn deltas_are_non_zero_and_bounded() {
        assert!(PointsDelta::new(0).is_err());
        assert!(PointsDelta::new(MAX_ABS_POINTS_DELTA + 1).is_err());
        assert!(PointsDelta::new(-MAX_ABS_POINTS_DELTA - 1).is_err());
        assert_eq!(delta(-MAX_ABS_POINTS_DELTA).credited(), 0);
        assert_eq!(delta(MAX_ABS_POINTS_DELTA).credited(), MAX_ABS_POINTS_DELTA);
    }

    #[test]
    fn reasons_are_trimmed_and_take_1_to_200_characters() {
        assert_eq!(
            PointsReason::parse("  web order 42 ").unwrap().as_str(),
            "web order 42"
        );
        assert!(PointsReason::parse("   ").is_err());
        assert!(PointsReason::parse(&"é".repeat(200)).is_ok());
        assert!(PointsReason::parse(&"é".repeat(201)).is_err());
    }

    #[test]
    fn fingerprints_name_the_client_the_points_and_the_reason() {
        let request = |points, reason| PointsAdjustmentRequest {
            delta: delta(points),
            reason: PointsReason::parse(reason).unwrap(),
        };
        let alice = ClientId::parse("alice").unwrap();
        let bob = ClientId::parse("bob").unwrap();
        let first = request(5, "web order").fingerprint(&alice);
        assert_eq!(first, request(5, " web order ").fingerprint(&alice));
        assert_ne!(first, request(-5, "web order").fingerprint(&alice));
        assert_ne!(first, request(5, "web order 2").fingerprint(&alice));
        assert_ne!(first, request(5, "web order").fingerprint(&bob));
    }

    fn tier(id: &str, min: i64) -> LoyaltyTier {
        LoyaltyTier {
            id: TierId::parse(id).unwrap(),
            name: id.to_owned(),
            min_points_lifetime: min,
            color: HexColor::parse("#123456").unwrap(),
        }
    }

    #[test]
    fn the_tier_moves_only_across_a_threshold() {
        let tiers = [tier("silver", 500), tier("bronze", 100)];
        assert!(tier_moved(&tiers, 99, 100), "into the first tier");
        assert!(tier_moved(&tiers, 400, 900), "from bronze to silver");
        assert!(!tier_moved(&tiers, 100, 499), "within bronze");
        assert!(!tier_moved(&tiers, 10, 50), "below every tier");
        assert!(!tier_moved(&[], 0, 1_000), "a shop without tiers");
    }
}
