use shop_domain::client::ClientConfidential;
use shop_domain::id::{ClientId, OrderId};
use shop_domain::import::ShopImport;
use shop_domain::order::OrderConfidential;
use shop_ports::port::LoyaltyRepository;
use shop_ports::port::ReadFrom;

use super::fixtures::{
    client, imported_client, imported_event, imported_order, order, spin, store, ticket, tier,
    two_shops,
};
use super::test_databases;

fn clients(ids: &[&str]) -> Vec<shop_domain::import::ImportedClient> {
    ids.iter()
        .map(|id| imported_client(client(id, "Client"), 1, ClientConfidential::default()))
        .collect()
}

#[tokio::test]
async fn recent_tickets_and_spins_are_newest_first_capped_and_scoped() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        // c1: five tickets and spins, two of them at the same time; c2 one of each.
        let times = [
            ("e1", 100),
            ("e2", 300),
            ("e3", 300),
            ("e4", 200),
            ("e5", 50),
        ];
        let mut tickets: Vec<_> = times
            .iter()
            .map(|(id, at)| imported_event(ticket(&format!("t-{id}"), "c1", *at), *at))
            .collect();
        tickets.push(imported_event(ticket("t-other", "c2", 999), 999));
        tickets[0].event.order_id = Some(OrderId::parse("o1").unwrap());
        let mut spins: Vec<_> = times
            .iter()
            .map(|(id, at)| imported_event(spin(&format!("s-{id}"), "c1", *at), *at))
            .collect();
        spins.push(imported_event(spin("s-other", "c2", 999), 999));
        spins[1].event.won = false;
        spins[1].event.prize_label = None;
        spins[1].event.prize_type = None;
        let data = ShopImport {
            clients: clients(&["c1", "c2"]),
            orders: vec![imported_order(
                order("o1", 10),
                OrderConfidential::default(),
            )],
            lottery_tickets: tickets.clone(),
            spins: spins.clone(),
            ..ShopImport::default()
        };
        store(&t.db, &a, data).await;
        // Shop b's client c9 with a later ticket: never seen from shop a.
        let theirs = ShopImport {
            clients: clients(&["c9"]),
            lottery_tickets: vec![imported_event(ticket("t-b", "c9", 5_000), 5_000)],
            ..ShopImport::default()
        };
        store(&t.db, &b, theirs).await;
        let c1 = ClientId::parse("c1").unwrap();
        let backend = t.backend();

        let latest =
            t.db.recent_tickets(&a.id, &c1, 3, ReadFrom::Primary)
                .await
                .unwrap();
        let shown: Vec<_> = latest.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(shown, ["t-e3", "t-e2", "t-e4"], "{backend}");
        let every =
            t.db.recent_tickets(&a.id, &c1, 10, ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(every.len(), 5, "{backend}");
        assert_eq!(every[3], tickets[0].event, "{backend}: stored as given");

        let latest =
            t.db.recent_spins(&a.id, &c1, 2, ReadFrom::Primary)
                .await
                .unwrap();
        let shown: Vec<_> = latest.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(shown, ["s-e3", "s-e2"], "{backend}");
        assert_eq!(latest[1], spins[1].event, "{backend}: stored as given");

        let c9 = ClientId::parse("c9").unwrap();
        assert!(
            t.db.recent_tickets(&a.id, &c9, 10, ReadFrom::Primary)
                .await
                .unwrap()
                .is_empty()
        );
        assert!(
            t.db.recent_spins(&b.id, &c1, 10, ReadFrom::Primary)
                .await
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            t.db.recent_tickets(&b.id, &c9, 10, ReadFrom::Primary)
                .await
                .unwrap()
                .len(),
            1
        );
        assert!(
            t.db.recent_tickets(&a.id, &c1, 0, ReadFrom::Primary)
                .await
                .unwrap()
                .is_empty()
        );
    }
}

#[tokio::test]
async fn tiers_are_the_shops_own() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        let mine = ShopImport {
            tiers: vec![tier("gold", 2_000), tier("bronze", 0)],
            ..ShopImport::default()
        };
        store(&t.db, &a, mine).await;
        let theirs = ShopImport {
            tiers: vec![tier("platinum", 9_000)],
            ..ShopImport::default()
        };
        store(&t.db, &b, theirs).await;

        let mut found = t.db.tiers(&a.id, ReadFrom::Primary).await.unwrap();
        found.sort_by(|x, y| x.id.cmp(&y.id));
        assert_eq!(
            found,
            [tier("bronze", 0), tier("gold", 2_000)],
            "{}",
            t.backend()
        );
    }
}
