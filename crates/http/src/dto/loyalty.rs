//! Loyalty summary (spec §2, `GET /clients/:id/loyalty`, inside `data`).

use serde::Serialize;
use shop_domain::Timestamp;
use shop_domain::loyalty::{
    LotteryTicket, LoyaltyTier, NextTier, PointsAdjustment, Spin, TierStanding,
};
use shop_ports::usecase::LoyaltySummary;
use utoipa::ToSchema;

use crate::dto::as_text;

/// A client's loyalty balance, tier standing, and latest lottery tickets and spins.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = LoyaltySummary)]
pub struct LoyaltySummaryDto {
    client_id: String,
    points: i64,
    points_lifetime: i64,
    points_all_time: i64,
    tier: TierDto,
    /// The 10 latest at most, newest first.
    #[schema(max_items = 10)]
    recent_lottery_tickets: Vec<TicketDto>,
    /// The 10 latest instant spins at most, newest first.
    #[schema(max_items = 10)]
    recent_spins: Vec<SpinDto>,
}

/// The current and next tier, and the progress between them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = TierStanding)]
struct TierDto {
    /// `null` below the lowest tier or when the shop has none.
    #[schema(required = true)]
    current: Option<CurrentTierDto>,
    /// `null` at the top tier or when the shop has none.
    #[schema(required = true)]
    next: Option<NextTierDto>,
    /// The fraction of the way from the current tier to the next, from 0 to 1; 1 at the top
    /// tier, 0 when the shop has no tiers.
    #[schema(minimum = 0, maximum = 1)]
    progress: f64,
}

/// The tier the client has reached.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = CurrentTier)]
struct CurrentTierDto {
    id: String,
    name: String,
    min_points_lifetime: i64,
    /// `#RRGGBB`, upper case.
    #[schema(pattern = "^#[0-9A-F]{6}$")]
    color: String,
    /// The client's `tierAchievedAt`.
    #[schema(required = true, format = DateTime)]
    achieved_at: Option<String>,
}

/// The tier after the current one.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = NextTier)]
struct NextTierDto {
    id: String,
    name: String,
    min_points_lifetime: i64,
    /// Lifetime points still needed to reach this tier.
    points_to_next: i64,
}

/// A lottery ticket.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = LotteryTicket)]
struct TicketDto {
    id: String,
    /// `null` when the ticket came from no order.
    #[schema(required = true)]
    order_id: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
}

/// An instant spin.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Spin)]
struct SpinDto {
    id: String,
    /// `null` when the spin came from no order.
    #[schema(required = true)]
    order_id: Option<String>,
    won: bool,
    /// `null` when the spin did not win.
    #[schema(required = true)]
    prize_label: Option<String>,
    /// `null` when the spin did not win.
    #[schema(required = true)]
    prize_type: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
}

impl From<&LoyaltySummary> for LoyaltySummaryDto {
    fn from(summary: &LoyaltySummary) -> Self {
        Self {
            client_id: summary.client_id.to_string(),
            points: summary.points,
            points_lifetime: summary.points_lifetime,
            points_all_time: summary.points_all_time,
            tier: TierDto::new(&summary.standing, summary.achieved_at),
            recent_lottery_tickets: summary.recent_tickets.iter().map(TicketDto::from).collect(),
            recent_spins: summary.recent_spins.iter().map(SpinDto::from).collect(),
        }
    }
}

impl TierDto {
    fn new(standing: &TierStanding, achieved_at: Option<Timestamp>) -> Self {
        Self {
            current: standing
                .current
                .as_ref()
                .map(|tier| CurrentTierDto::new(tier, achieved_at)),
            next: standing.next.as_ref().map(NextTierDto::from),
            progress: standing.progress,
        }
    }
}

impl CurrentTierDto {
    fn new(tier: &LoyaltyTier, achieved_at: Option<Timestamp>) -> Self {
        Self {
            id: tier.id.to_string(),
            name: tier.name.clone(),
            min_points_lifetime: tier.min_points_lifetime,
            color: tier.color.to_string(),
            achieved_at: achieved_at.map(as_text::rfc3339),
        }
    }
}

impl From<&NextTier> for NextTierDto {
    fn from(next: &NextTier) -> Self {
        Self {
            id: next.tier.id.to_string(),
            name: next.tier.name.clone(),
            min_points_lifetime: next.tier.min_points_lifetime,
            points_to_next: next.points_to_next,
        }
    }
}

impl From<&LotteryTicket> for TicketDto {
    fn from(ticket: &LotteryTicket) -> Self {
        Self {
            id: ticket.id.to_string(),
            order_id: ticket.order_id.as_ref().map(ToString::to_string),
            created_at: as_text::rfc3339(ticket.created_at),
        }
    }
}

impl From<&Spin> for SpinDto {
    fn from(spin: &Spin) -> Self {
        Self {
            id: spin.id.to_string(),
            order_id: spin.order_id.as_ref().map(ToString::to_string),
            won: spin.won,
            prize_label: spin.prize_label.clone(),
            prize_type: spin.prize_type.clone(),
            created_at: as_text::rfc3339(spin.created_at),
        }
    }
}

/// An applied adjustment of a client's points (API v2).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = LoyaltyAdjustment)]
pub struct PointsAdjustmentDto {
    client_id: String,
    /// Spendable points before the adjustment.
    previous_points: i64,
    /// Spendable points after it; never below 0.
    new_points: i64,
    /// The points added (a credit) or taken (a debit).
    #[schema(minimum = -1_000_000_000, maximum = 1_000_000_000)]
    delta: i64,
    /// The id of the adjustment kept (`lpa_…`).
    adjustment_id: String,
    #[schema(format = DateTime)]
    applied_at: String,
}

impl From<&PointsAdjustment> for PointsAdjustmentDto {
    fn from(adjustment: &PointsAdjustment) -> Self {
        Self {
            client_id: adjustment.client_id.to_string(),
            previous_points: adjustment.previous_points,
            new_points: adjustment.new_points,
            delta: adjustment.delta,
            adjustment_id: adjustment.id.to_string(),
            applied_at: as_text::rfc3339(adjustment.applied_at),
        }
    }
}
