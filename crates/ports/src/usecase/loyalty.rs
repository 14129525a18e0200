//! `GET /clients/:id/loyalty`: balance, tier standing, the latest tickets and spins.

use std::sync::Arc;

use shop_domain::Timestamp;
use shop_domain::id::{ClientId, ShopId};
use shop_domain::loyalty::{LotteryTicket, RECENT_LIMIT, Spin, TierStanding, tier_standing};

use super::ReadError;
use crate::port::{ClientRepository, LoyaltyRepository, ReadFrom};

#[derive(Clone, Debug, PartialEq)]
pub struct LoyaltySummary {
    pub client_id: ClientId,
    pub points: i64,
    pub points_lifetime: i64,
    pub points_all_time: i64,
    pub standing: TierStanding,
    /// The client's `tierAchievedAt`, shown on the current tier.
    pub achieved_at: Option<Timestamp>,
    pub recent_tickets: Vec<LotteryTicket>,
    pub recent_spins: Vec<Spin>,
}

pub struct LoyaltyOverview {
    clients: Arc<dyn ClientRepository>,
    loyalty: Arc<dyn LoyaltyRepository>,
}

impl LoyaltyOverview {
    pub fn new(clients: Arc<dyn ClientRepository>, loyalty: Arc<dyn LoyaltyRepository>) -> Self {
        Self { clients, loyalty }
    }

    /// The client's summary, every part of it read `from` the database named.
    pub async fn summary(
        &self,
        shop: &ShopId,
        id: &ClientId,
        from: ReadFrom,
    ) -> Result<LoyaltySummary, ReadError> {
        let client = self
            .clients
            .find_client(shop, id, from)
            .await?
            .ok_or(ReadError::NotFound)?;
        let tiers = self.loyalty.tiers(shop, from).await?;
        let mut recent_tickets = self
            .loyalty
            .recent_tickets(shop, id, RECENT_LIMIT, from)
            .await?;
        let mut recent_spins = self
            .loyalty
            .recent_spins(shop, id, RECENT_LIMIT, from)
            .await?;
        // The cap is the contract: never more than 10, whatever a store returns.
        recent_tickets.truncate(RECENT_LIMIT);
        recent_spins.truncate(RECENT_LIMIT);
        let loyalty = client.loyalty;
        Ok(LoyaltySummary {
            client_id: id.clone(),
            points: loyalty.points,
            points_lifetime: loyalty.points_lifetime,
            points_all_time: loyalty.points_all_time,
            standing: tier_standing(&tiers, loyalty.points_lifetime),
            achieved_at: loyalty.tier_achieved_at,
            recent_tickets,
            recent_spins,
        })
    }
}

#[cfg(test)]
mod tests {
    use shop_domain::client::{Billing, Client, ClientLoyalty};
    use shop_domain::color::HexColor;
    use shop_domain::id::{TicketId, TierId};
    use shop_domain::loyalty::LoyaltyTier;

    use super::*;
    use crate::port::{MockClientRepository, MockLoyaltyRepository};

    fn shop() -> ShopId {
        ShopId::parse("shop_a").unwrap()
    }

    fn client_id(id: &str) -> ClientId {
        ClientId::parse(id).unwrap()
    }

    fn client(points_lifetime: i64) -> Client {
        Client {
            id: ClientId::parse("c1").unwrap(),
            name: "Marie".into(),
            display_name: None,
            phone: None,
            email: None,
            billing: Billing {
                country: "FR".into(),
                ..Billing::default()
            },
            birth_date: None,
            loyalty: ClientLoyalty {
                points: 40,
                expires_at: None,
                points_lifetime,
                points_all_time: 900,
                tier_achieved_at: Some(Timestamp::from_millis(77)),
            },
            receipt_by_email: false,
            tags: vec![],
            created_at: Timestamp::from_millis(0),
            updated_at: Timestamp::from_millis(0),
        }
    }

    fn ticket(n: i64) -> LotteryTicket {
        LotteryTicket {
            id: TicketId::parse(format!("t{n}")).unwrap(),
            client_id: ClientId::parse("c1").unwrap(),
            order_id: None,
            created_at: Timestamp::from_millis(n),
        }
    }

    fn overview(clients: MockClientRepository, tickets: usize) -> LoyaltyOverview {
        let mut loyalty = MockLoyaltyRepository::new();
        loyalty.expect_tiers().returning(|_, _| {
            Ok(vec![LoyaltyTier {
                id: TierId::parse("silver").unwrap(),
                name: "Argent".into(),
                min_points_lifetime: 500,
                color: HexColor::parse("#C0C0C0").unwrap(),
            }])
        });
        loyalty
            .expect_recent_tickets()
            .withf(|_, client, limit, _| client.as_str() == "c1" && *limit == 10)
            .returning(move |_, _, _, _| Ok((0..tickets as i64).map(ticket).collect()));
        loyalty
            .expect_recent_spins()
            .returning(|_, _, _, _| Ok(vec![]));
        LoyaltyOverview::new(Arc::new(clients), Arc::new(loyalty))
    }

    #[tokio::test]
    async fn summary_combines_balance_standing_and_recent_activity() {
        let mut clients = MockClientRepository::new();
        clients
            .expect_find_client()
            .returning(|_, _, _| Ok(Some(client(600))));
        let summary = overview(clients, 3)
            .summary(&shop(), &client_id("c1"), ReadFrom::Primary)
            .await
            .unwrap();
        assert_eq!(
            (
                summary.points,
                summary.points_lifetime,
                summary.points_all_time
            ),
            (40, 600, 900)
        );
        assert_eq!(summary.standing.current.unwrap().id.as_str(), "silver");
        assert_eq!(summary.standing.progress, 1.0);
        assert_eq!(summary.achieved_at, Some(Timestamp::from_millis(77)));
        assert_eq!(summary.recent_tickets.len(), 3);
    }

    #[tokio::test]
    async fn never_more_than_ten_tickets_even_if_the_store_sends_more() {
        let mut clients = MockClientRepository::new();
        clients
            .expect_find_client()
            .returning(|_, _, _| Ok(Some(client(0))));
        let summary = overview(clients, 14)
            .summary(&shop(), &client_id("c1"), ReadFrom::Primary)
            .await
            .unwrap();
        assert_eq!(summary.recent_tickets.len(), 10);
    }

    // An id that cannot exist never gets this far: `shop-http`'s `PathId` answers it with the
    // same 404 before any use case runs.
    #[tokio::test]
    async fn an_unknown_client_is_not_found_before_any_loyalty_query() {
        let mut clients = MockClientRepository::new();
        clients.expect_find_client().returning(|_, _, _| Ok(None));
        let overview =
            LoyaltyOverview::new(Arc::new(clients), Arc::new(MockLoyaltyRepository::new()));
        assert!(matches!(
            overview
                .summary(&shop(), &client_id("c404"), ReadFrom::Primary)
                .await,
            Err(ReadError::NotFound)
        ));
    }
}
