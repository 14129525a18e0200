//! Loyalty rows: tiers, lottery tickets and instant spins.

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use shop_domain::Timestamp;
use shop_domain::color::HexColor;
use shop_domain::id::{ClientId, OrderId, ShopId, SpinId, TicketId, TierId};
use shop_domain::loyalty::{LotteryTicket, LoyaltyTier, Spin};

use crate::error::DbError;
use crate::schema::{lottery_tickets, loyalty_tiers, spins};

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
