//! Loyalty rows: tiers, lottery tickets and instant spins, and the adjustments of points
//! made through the API with their idempotency records' outcomes.

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use shop_domain::Timestamp;
use shop_domain::color::HexColor;
use shop_domain::id::{ClientId, LoyaltyAdjustmentId, OrderId, ShopId, SpinId, TicketId, TierId};
use shop_domain::loyalty::{LotteryTicket, LoyaltyTier, PointsAdjustment, PointsRefusal, Spin};

use shop_ports::port::PointsResult;

use super::IdempotencyRow;
use crate::error::DbError;
use crate::schema::{lottery_tickets, loyalty_adjustments, loyalty_tiers, spins};

#[derive(Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = loyalty_tiers, check_for_backend(Sqlite, Pg))]
pub(crate) struct TierRow {
    pub id: String,
    pub shop_id: String,
    pub name: String,
    pub min_points_lifetime: i64,
    pub color: String,
}

impl TierRow {
    pub fn from_domain(shop: &ShopId, tier: &LoyaltyTier) -> Self {
        Self {
            id: tier.id.as_str().to_owned(),
            shop_id: shop.as_str().to_owned(),
            name: tier.name.clone(),
            min_points_lifetime: tier.min_points_lifetime,
            color: tier.color.as_str().to_owned(),
        }
    }

    pub fn into_domain(self) -> Result<LoyaltyTier, DbError> {
        let corrupt = |problem: &dyn ToString| {
            DbError::corrupt("loyalty_tiers", &self.id, problem.to_string())
        };
        Ok(LoyaltyTier {
            id: TierId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
            color: HexColor::parse(&self.color).map_err(|e| corrupt(&e))?,
            min_points_lifetime: self.min_points_lifetime,
            name: self.name,
        })
    }
}

#[derive(Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = lottery_tickets, check_for_backend(Sqlite, Pg))]
#[diesel(treat_none_as_default_value = false, treat_none_as_null = true)]
pub(crate) struct TicketRow {
    pub id: String,
    pub shop_id: String,
    pub client_id: String,
    pub order_id: Option<String>,
    pub created_at_ms: i64,
}

impl TicketRow {
    pub fn from_domain(shop: &ShopId, ticket: &LotteryTicket) -> Self {
        Self {
            id: ticket.id.as_str().to_owned(),
            shop_id: shop.as_str().to_owned(),
            client_id: ticket.client_id.as_str().to_owned(),
            order_id: ticket.order_id.as_ref().map(|id| id.as_str().to_owned()),
            created_at_ms: ticket.created_at.millis(),
        }
    }

    pub fn into_domain(self) -> Result<LotteryTicket, DbError> {
        let corrupt = |problem: &dyn ToString| {
            DbError::corrupt("lottery_tickets", &self.id, problem.to_string())
        };
        Ok(LotteryTicket {
            id: TicketId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
            client_id: ClientId::parse(self.client_id.as_str()).map_err(|e| corrupt(&e))?,
            order_id: self
                .order_id
                .as_deref()
                .map(OrderId::parse)
                .transpose()
                .map_err(|e| corrupt(&e))?,
            created_at: Timestamp::from_millis(self.created_at_ms),
        })
    }
}

#[derive(Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = spins, check_for_backend(Sqlite, Pg))]
#[diesel(treat_none_as_default_value = false, treat_none_as_null = true)]
pub(crate) struct SpinRow {
    pub id: String,
    pub shop_id: String,
    pub client_id: String,
    pub order_id: Option<String>,
    pub won: bool,
    pub prize_label: Option<String>,
    pub prize_type: Option<String>,
    pub created_at_ms: i64,
}

impl SpinRow {
    pub fn from_domain(shop: &ShopId, spin: &Spin) -> Self {
        Self {
            id: spin.id.as_str().to_owned(),
            shop_id: shop.as_str().to_owned(),
            client_id: spin.client_id.as_str().to_owned(),
            order_id: spin.order_id.as_ref().map(|id| id.as_str().to_owned()),
            won: spin.won,
            prize_label: spin.prize_label.clone(),
            prize_type: spin.prize_type.clone(),
            created_at_ms: spin.created_at.millis(),
        }
    }

    pub fn into_domain(self) -> Result<Spin, DbError> {
        let corrupt =
            |problem: &dyn ToString| DbError::corrupt("spins", &self.id, problem.to_string());
        Ok(Spin {
            id: SpinId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
            client_id: ClientId::parse(self.client_id.as_str()).map_err(|e| corrupt(&e))?,
            order_id: self
                .order_id
                .as_deref()
                .map(OrderId::parse)
                .transpose()
                .map_err(|e| corrupt(&e))?,
            won: self.won,
            created_at: Timestamp::from_millis(self.created_at_ms),
            prize_label: self.prize_label,
            prize_type: self.prize_type,
        })
    }
}

/// One adjustment of a client's points made through the API.
#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = loyalty_adjustments, check_for_backend(Sqlite, Pg))]
pub(crate) struct PointsAdjustmentRow {
    pub id: String,
    pub shop_id: String,
    pub client_id: String,
    pub delta: i64,
    pub previous_points: i64,
    pub new_points: i64,
    pub reason: String,
    pub api_key_prefix: String,
    pub created_at_ms: i64,
}

impl PointsAdjustmentRow {
    pub fn into_domain(self) -> Result<PointsAdjustment, DbError> {
        let corrupt = |problem: &dyn ToString| {
            DbError::corrupt("loyalty_adjustments", &self.id, problem.to_string())
        };
        Ok(PointsAdjustment {
            id: LoyaltyAdjustmentId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
            client_id: ClientId::parse(self.client_id.as_str()).map_err(|e| corrupt(&e))?,
            previous_points: self.previous_points,
            new_points: self.new_points,
            delta: self.delta,
            reason: self.reason,
            applied_at: Timestamp::from_millis(self.created_at_ms),
        })
    }
}

/// The outcome column of a points adjustment's idempotency record, for each result but an
/// applied one, whose adjustment the record names instead.
const CLIENT_NOT_FOUND: &str = "client_not_found";
const INSUFFICIENT_POINTS: &str = "insufficient_points";
const POINTS_OUT_OF_RANGE: &str = "points_out_of_range";
const POINTS_APPLIED: &str = "points_applied";

/// What a points adjustment's idempotency record says to replay.
pub(crate) enum PointsRecorded {
    /// Load this adjustment: it is the applied result.
    Applied(String),
    ClientNotFound,
    Refused(PointsRefusal),
}

impl PointsRecorded {
    /// What to record of a result decided now.
    pub fn of_result(result: &PointsResult) -> Self {
        match result {
            PointsResult::Applied(applied) => Self::Applied(applied.id.to_string()),
            PointsResult::ClientNotFound => Self::ClientNotFound,
            PointsResult::Refused(refusal) => Self::Refused(*refusal),
        }
    }

    /// The record's `outcome` and `loyalty_adjustment_id`.
    pub fn columns(self) -> (&'static str, Option<String>) {
        match self {
            Self::Applied(id) => (POINTS_APPLIED, Some(id)),
            Self::ClientNotFound => (CLIENT_NOT_FOUND, None),
            Self::Refused(PointsRefusal::Insufficient) => (INSUFFICIENT_POINTS, None),
            Self::Refused(PointsRefusal::OutOfRange) => (POINTS_OUT_OF_RANGE, None),
        }
    }

    /// The record's result; a record of a stock adjustment is not one (its fingerprint
    /// never matches a points request's, so it is refused as a reused key before this).
    pub fn of(row: &IdempotencyRow) -> Result<Self, DbError> {
        let corrupt = |problem: &str| {
            DbError::corrupt(
                "idempotency_records",
                &format!("{}/{}", row.api_key_prefix, row.idempotency_key),
                problem,
            )
        };
        match (row.outcome.as_str(), &row.loyalty_adjustment_id) {
            (POINTS_APPLIED, Some(id)) => Ok(Self::Applied(id.clone())),
            (CLIENT_NOT_FOUND, None) => Ok(Self::ClientNotFound),
            (INSUFFICIENT_POINTS, None) => Ok(Self::Refused(PointsRefusal::Insufficient)),
            (POINTS_OUT_OF_RANGE, None) => Ok(Self::Refused(PointsRefusal::OutOfRange)),
            _ => Err(corrupt("not the record of a points adjustment")),
        }
    }
}
