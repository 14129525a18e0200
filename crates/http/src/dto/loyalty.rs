//! Loyalty summary (spec §2, `GET /clients/:id/loyalty`, inside `data`).

use serde::Serialize;
use shop_domain::Timestamp;
use shop_domain::loyalty::{LotteryTicket, LoyaltyTier, NextTier, Spin, TierStanding};
use shop_ports::usecase::LoyaltySummary;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoyaltySummaryDto {
    client_id: String,
    points: i64,
    points_lifetime: i64,
    points_all_time: i64,
    tier: TierDto,
    /// At most 10, newest first (the use case caps them).
    recent_lottery_tickets: Vec<TicketDto>,
    recent_spins: Vec<SpinDto>,
}

#[derive(Debug, Serialize)]
struct TierDto {
    /// `null` below the lowest tier or when the shop has none.
    current: Option<CurrentTierDto>,
    /// `null` at the top tier or when the shop has none.
    next: Option<NextTierDto>,
    /// A JSON number in [0, 1].
    progress: f64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CurrentTierDto {
    id: String,
    name: String,
    min_points_lifetime: i64,
    /// `#RRGGBB`, upper case.
    color: String,
    /// The client's `tierAchievedAt`.
    achieved_at: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct NextTierDto {
    id: String,
    name: String,
    min_points_lifetime: i64,
    points_to_next: i64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct TicketDto {
    id: String,
    order_id: Option<String>,
    created_at: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SpinDto {
    id: String,
    order_id: Option<String>,
    won: bool,
    prize_label: Option<String>,
    prize_type: Option<String>,
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
            achieved_at: achieved_at.map(|at| at.to_rfc3339()),
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
            created_at: ticket.created_at.to_rfc3339(),
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
            created_at: spin.created_at.to_rfc3339(),
        }
    }
}
