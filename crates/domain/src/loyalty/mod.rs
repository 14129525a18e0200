//! Loyalty: tiers, where a client stands among them, lottery tickets and instant spins; and
//! the adjustments of a client's points that integrations make (`points.rs`).

mod points;

pub use points::{
    MAX_ABS_POINTS_DELTA, MAX_POINTS, MAX_POINTS_REASON_LEN, PointsAdjustment,
    PointsAdjustmentRequest, PointsBalance, PointsDelta, PointsReason, PointsRefusal, tier_moved,
};

use crate::Timestamp;
use crate::color::HexColor;
use crate::id::{ClientId, OrderId, SpinId, TicketId, TierId};

/// How many tickets and spins the loyalty summary shows (spec §8).
pub const RECENT_LIMIT: usize = 10;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoyaltyTier {
    pub id: TierId,
    pub name: String,
    pub min_points_lifetime: i64,
    pub color: HexColor,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LotteryTicket {
    pub id: TicketId,
    pub client_id: ClientId,
    pub order_id: Option<OrderId>,
    pub created_at: Timestamp,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spin {
    pub id: SpinId,
    pub client_id: ClientId,
    pub order_id: Option<OrderId>,
    pub won: bool,
    pub prize_label: Option<String>,
    pub prize_type: Option<String>,
    pub created_at: Timestamp,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NextTier {
    pub tier: LoyaltyTier,
    pub points_to_next: i64,
}

/// Where a client stands among the shop's tiers.
#[derive(Clone, Debug, PartialEq)]
pub struct TierStanding {
    pub current: Option<LoyaltyTier>,
    pub next: Option<NextTier>,
    /// The fraction of the way from the current tier's threshold (0 without one) to the next
    /// tier's, in [0, 1]; 1 at the top tier; 0 when the shop has no tiers.
    pub progress: f64,
}

/// Current tier: the highest whose threshold is at most `points_lifetime` (ties between equal
/// thresholds go to the greater id, so the answer is deterministic). Next tier: the lowest
/// whose threshold is above `points_lifetime`.
pub fn tier_standing(tiers: &[LoyaltyTier], points_lifetime: i64) -> TierStanding {
    let mut ordered: Vec<&LoyaltyTier> = tiers.iter().collect();
    ordered.sort_by(|a, b| {
        a.min_points_lifetime
            .cmp(&b.min_points_lifetime)
            .then_with(|| a.id.cmp(&b.id))
    });
    let current = ordered
        .iter()
        .rev()
        .find(|tier| tier.min_points_lifetime <= points_lifetime)
        .copied();
    let next = ordered
        .iter()
        .find(|tier| tier.min_points_lifetime > points_lifetime)
        .copied();
    let progress = match (current, next) {
        (_, Some(next)) => {
            let base = current.map_or(0, |tier| tier.min_points_lifetime);
            let span = next.min_points_lifetime - base;
            if span <= 0 {
                0.0
            } else {
                ((points_lifetime - base) as f64 / span as f64).clamp(0.0, 1.0)
            }
        }
        (Some(_), None) => 1.0,
        (None, None) => 0.0,
    };
    TierStanding {
        current: current.cloned(),
        next: next.map(|tier| NextTier {
            tier: tier.clone(),
            points_to_next: tier.min_points_lifetime - points_lifetime,
        }),
        progress,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tier(id: &str, min: i64) -> LoyaltyTier {
        LoyaltyTier {
            id: TierId::parse(id).unwrap(),
            name: id.to_uppercase(),
            min_points_lifetime: min,
            color: HexColor::parse("#123456").unwrap(),
        }
    }

    fn tiers() -> Vec<LoyaltyTier> {
        // Deliberately unsorted.
        vec![
            tier("gold", 2_000),
            tier("bronze", 100),
            tier("silver", 500),
        ]
    }

    fn ids(standing: &TierStanding) -> (Option<&str>, Option<&str>) {
        (
            standing.current.as_ref().map(|t| t.id.as_str()),
            standing.next.as_ref().map(|n| n.tier.id.as_str()),
        )
    }

    #[test]
    fn a_shop_without_tiers_has_no_standing() {
        let standing = tier_standing(&[], 1_000);
        assert_eq!(ids(&standing), (None, None));
        assert_eq!(standing.progress, 0.0);
    }

    #[test]
    fn below_every_tier_progresses_from_zero() {
        let standing = tier_standing(&tiers(), 25);
        assert_eq!(ids(&standing), (None, Some("bronze")));
        assert_eq!(standing.next.unwrap().points_to_next, 75);
        assert_eq!(standing.progress, 0.25);
    }

    #[test]
    fn exactly_on_a_threshold_is_in_that_tier_with_no_progress() {
        let standing = tier_standing(&tiers(), 500);
        assert_eq!(ids(&standing), (Some("silver"), Some("gold")));
        assert_eq!(standing.next.as_ref().unwrap().points_to_next, 1_500);
        assert_eq!(standing.progress, 0.0);
    }

    #[test]
    fn between_two_tiers_progress_is_the_fraction_of_the_gap() {
        let standing = tier_standing(&tiers(), 875);
        assert_eq!(ids(&standing), (Some("silver"), Some("gold")));
        assert_eq!(standing.next.as_ref().unwrap().points_to_next, 1_125);
        assert_eq!(standing.progress, 0.25);
    }

    #[test]
    fn above_the_top_tier_progress_is_complete() {
        let standing = tier_standing(&tiers(), 9_999);
        assert_eq!(ids(&standing), (Some("gold"), None));
        assert_eq!(standing.progress, 1.0);
    }

    #[test]
    fn two_tiers_with_the_same_threshold_resolve_deterministically() {
        let mut list = tiers();
        list.push(tier("argent", 500));
        let standing = tier_standing(&list, 600);
        assert_eq!(
            ids(&standing),
            (Some("silver"), Some("gold")),
            "the greater id wins a tie"
        );
        let below = tier_standing(&list, 499);
        assert_eq!(ids(&below), (Some("bronze"), Some("argent")));
    }
}
