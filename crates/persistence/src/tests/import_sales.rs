//! The import of clients, orders, tickets and spins: idempotence, confidential fields, item
//! replacement, and every refusal with its path.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::client::{Client, ClientConfidential, ClientListQuery};
use shop_domain::id::{ClientId, OrderId, ProductId, ShopId, VariantId};
use shop_domain::import::{GivenStamps, ImportedClient, ImportedEvent, ImportedOrder, ShopImport};
use shop_domain::loyalty::{LotteryTicket, Spin};
use shop_domain::order::{Order, OrderConfidential, OrderItem, OrderListQuery};
use shop_domain::shop::Shop;
use shop_ports::port::ReadFrom;
use shop_ports::port::{
    ClientRepository, ImportCounts, ImportReport, ImportRepository, ImportStoreError,
    LoyaltyRepository, OrderRepository,
};

use super::fixtures::{
    at, client, imported, item, order, product, spin, store, ticket, tier, two_shops, variant,
};
use super::{TestDb, test_databases};
use crate::database::with_conn;
use crate::schema::{clients, lottery_tickets, order_items, orders, products, spins};

fn no_stamps_client(client: Client, private: ClientConfidential) -> ImportedClient {
    ImportedClient {
        client,
        confidential: private,
        stamps: GivenStamps::default(),
    }
}

fn no_stamps_order(order: Order, private: OrderConfidential) -> ImportedOrder {
    ImportedOrder {
        order,
        confidential: private,
        stamps: GivenStamps::default(),
    }
}

fn no_stamp<T>(event: T) -> ImportedEvent<T> {
    ImportedEvent {
        event,
        created_at: None,
    }
}

fn item_of(id: &str, product: &str, variant: &str) -> OrderItem {
    OrderItem {
        variant_id: VariantId::parse(variant).unwrap(),
        ..item(id, product)
    }
}

fn signed() -> OrderConfidential {
    OrderConfidential {
        signature: Some("sig-o1".into()),
        previous_signature: Some("sig-o0".into()),
        cumulative_total_ttc_snapshot: Some(123_456),
        internal_note: Some("fragile".into()),
        payment_intent_id: Some("pi_123".into()),
    }
}

fn private_note() -> ClientConfidential {
    ClientConfidential {
        note: Some("prefers mornings".into()),
        anonymous_client_id: Some("anon-42".into()),
    }
}

/// Every kind, no timestamps given (so every one defaults to `now` once, then is kept).
fn sample() -> ShopImport {
    let mut p1 = product("p1");
    p1.variants = vec![variant("p1-v0", 0), variant("p1-v1", 1)];
    let mut marie = client("c1", "Marie");
    marie.phone = Some("06 12 34 56 78".into());
    let mut o1 = order("o1", 0);
    o1.client_id = Some(ClientId::parse("c1").unwrap());
    o1.items = vec![item_of("i1", "p1", "p1-v1"), item("i2", "p2")];
    let mut o2 = order("o2", 0);
    o2.items = vec![item("i3", "p1")];
    let mut t1 = ticket("tk1", "c1", 0);
    t1.order_id = Some(OrderId::parse("o1").unwrap());
    let mut s1 = spin("s1", "c1", 0);
    s1.order_id = Some(OrderId::parse("o1").unwrap());
    ShopImport {
        tiers: vec![tier("gold", 500)],
        products: vec![imported(p1), imported(product("p2"))],
        clients: vec![
            no_stamps_client(marie, private_note()),
            no_stamps_client(client("c2", "Jean"), ClientConfidential::default()),
        ],
        orders: vec![
            no_stamps_order(o1, signed()),
            no_stamps_order(o2, OrderConfidential::default()),
        ],
        lottery_tickets: vec![no_stamp(t1), no_stamp(ticket("tk2", "c2", 0))],
        spins: vec![no_stamp(s1)],
    }
}

fn counts(written: usize, unchanged: usize) -> ImportCounts {
    ImportCounts { written, unchanged }
}

/// What the API can see of the shop.
async fn snapshot(
    t: &TestDb,
    shop: &Shop,
) -> (Vec<Order>, Vec<Client>, Vec<LotteryTicket>, Vec<Spin>) {
    let c1 = ClientId::parse("c1").unwrap();
    (
        t.db.list_orders(&shop.id, &OrderListQuery::default(), ReadFrom::Primary)
            .await
            .unwrap(),
        t.db.list_clients(&shop.id, &ClientListQuery::default(), ReadFrom::Primary)
            .await
            .unwrap(),
        t.db.recent_tickets(&shop.id, &c1, 10, ReadFrom::Primary)
            .await
            .unwrap(),
        t.db.recent_spins(&shop.id, &c1, 10, ReadFrom::Primary)
            .await
            .unwrap(),
    )
}

/// (products, clients, orders, order items, tickets, spins) stored for the shop.
async fn count_rows(t: &TestDb, shop: &ShopId) -> [i64; 6] {
    let shop = shop.as_str();
    macro_rules! count {
        ($table:ident) => {
            with_conn!(&t.db, |conn| $table::table
                .filter($table::shop_id.eq(shop))
                .count()
                .get_result::<i64>(conn)
                .await)
            .unwrap()
        };
    }
    [
        count!(products),
        count!(clients),
        count!(orders),
        count!(order_items),
        count!(lottery_tickets),
        count!(spins),
    ]
}

#[tokio::test]
async fn reimporting_every_kind_changes_nothing() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let first = t.db.import(&a.id, sample(), at(1_000)).await.unwrap();
        let expected = ImportReport {
            tiers: counts(1, 0),
            products: counts(2, 0),
            clients: counts(2, 0),
            orders: counts(2, 0),
            lottery_tickets: counts(2, 0),
            spins: counts(1, 0),
        };
        assert_eq!(first, expected, "{}", t.backend());
        let before = snapshot(&t, &a).await;
        assert_eq!(before.0[0].updated_at, at(1_000), "{}", t.backend());
        assert_eq!(before.2[0].created_at, at(1_000), "{}", t.backend());

        let second = t.db.import(&a.id, sample(), at(9_000)).await.unwrap();
        let expected = ImportReport {
            tiers: counts(0, 1),
            products: counts(0, 2),
            clients: counts(0, 2),
            orders: counts(0, 2),
            lottery_tickets: counts(0, 2),
            spins: counts(0, 1),
        };
        assert_eq!(second, expected, "{}", t.backend());
        assert_eq!(snapshot(&t, &a).await, before, "{}", t.backend());
        assert_eq!(
            count_rows(&t, &a.id).await,
            [2, 2, 2, 3, 2, 1],
            "{}",
            t.backend()
        );
    }
}

#[tokio::test]
async fn confidential_fields_are_stored_compared_and_never_read_back() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        t.db.import(&a.id, sample(), at(1_000)).await.unwrap();

        let order_private = with_conn!(&t.db, |conn| orders::table
            .filter(orders::id.eq("o1"))
            .select((
                orders::signature,
                orders::previous_signature,
                orders::cumulative_total_ttc_snapshot,
                orders::internal_note,
                orders::payment_intent_id,
            ))
            .first::<(
                Option<String>,
                Option<String>,
                Option<i64>,
                Option<String>,
                Option<String>,
            )>(conn)
            .await)
        .unwrap();
        let expected = signed();
        assert_eq!(
            order_private,
            (
                expected.signature,
                expected.previous_signature,
                expected.cumulative_total_ttc_snapshot,
                expected.internal_note,
                expected.payment_intent_id,
            ),
            "{}",
            t.backend()
        );
        let client_private = || {
            let db = t.db.clone();
            async move {
                with_conn!(&db, |conn| clients::table
                    .filter(clients::id.eq("c1"))
                    .select((clients::note, clients::anonymous_client_id))
                    .first::<(Option<String>, Option<String>)>(conn)
                    .await)
                .unwrap()
            }
        };
        assert_eq!(
            client_private().await,
            (Some("prefers mornings".into()), Some("anon-42".into()))
        );

        // A change to a private field alone is a change: written, and invisible in the API.
        let before = snapshot(&t, &a).await;
        let mut changed = sample();
        changed.clients[0].confidential.note = None;
        changed.orders[0].confidential.internal_note = Some("handle with care".into());
        let report = t.db.import(&a.id, changed, at(2_000)).await.unwrap();
        assert_eq!(report.clients, counts(1, 1), "{}", t.backend());
        assert_eq!(report.orders, counts(1, 1), "{}", t.backend());
        assert_eq!(client_private().await, (None, Some("anon-42".into())));
        let after = snapshot(&t, &a).await;
        let c1 = after.1.iter().find(|c| c.id.as_str() == "c1").unwrap();
        let c1_before = before.1.iter().find(|c| c.id.as_str() == "c1").unwrap();
        assert_eq!(c1.updated_at, at(2_000), "{}", t.backend());
        assert_eq!(
            Client {
                updated_at: c1_before.updated_at,
                ..c1.clone()
            },
            *c1_before,
            "{}",
            t.backend()
        );
    }
}

#[tokio::test]
async fn a_rewritten_order_replaces_its_items() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        t.db.import(&a.id, sample(), at(1_000)).await.unwrap();

        let mut changed = sample();
        let mut kept = item_of("i1", "p1", "p1-v1");
        kept.quantity = 7;
        changed.orders[0].order.items = vec![item("i4", "p2"), kept];
        let report =
            t.db.import(&a.id, changed.clone(), at(2_000))
                .await
                .unwrap();
        assert_eq!(report.orders, counts(1, 1), "{}", t.backend());

        let o1 = OrderId::parse("o1").unwrap();
        let found =
            t.db.find_order(&a.id, &o1, ReadFrom::Primary)
                .await
                .unwrap()
                .unwrap();
        assert_eq!(
            found.items,
            changed.orders[0].order.items,
            "{}",
            t.backend()
        );
        assert_eq!((found.created_at, found.updated_at), (at(1_000), at(2_000)));
        assert_eq!(
            count_rows(&t, &a.id).await[3],
            3,
            "{}: i2 is gone",
            t.backend()
        );
    }
}

/// The problems of a refused import, as shown to the user.
async fn refusal(t: &TestDb, shop: &Shop, data: ShopImport) -> Vec<String> {
    match t.db.import(&shop.id, data, at(3_000)).await {
        Err(ImportStoreError::Rejected(problems)) => {
            problems.iter().map(ToString::to_string).collect()
        }
        other => panic!("{}: expected a refusal, got {other:?}", t.backend()),
    }
}

#[tokio::test]
async fn ids_of_another_shop_are_refused_and_nothing_is_written() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        t.db.import(&b.id, sample(), at(1_000)).await.unwrap();
        let theirs = count_rows(&t, &b.id).await;

        let mut order_taken = order("o1", 10);
        order_taken.items = vec![item("mine-1", "p1")];
        let mut item_taken = order("o-mine", 10);
        item_taken.items = vec![item("mine-2", "p1"), item("i3", "p1")];
        let data = ShopImport {
            products: vec![imported(product("p-mine"))],
            clients: vec![
                no_stamps_client(client("c-mine", "Mine"), ClientConfidential::default()),
                no_stamps_client(client("c2", "Taken"), ClientConfidential::default()),
            ],
            orders: vec![
                no_stamps_order(order_taken, OrderConfidential::default()),
                no_stamps_order(item_taken, OrderConfidential::default()),
            ],
            lottery_tickets: vec![no_stamp(ticket("tk2", "c-mine", 0))],
            spins: vec![no_stamp(spin("s1", "c-mine", 0))],
            ..ShopImport::default()
        };
        // p1 is b's too: the items' productId is checked as well.
        let shown = refusal(&t, &a, data).await;
        assert_eq!(
            shown,
            [
                "clients[1].id: belongs to another shop",
                "orders[0].id: belongs to another shop",
                "orders[0].items[0].productId: no product with this id in the shop or the file",
                "orders[1].items[0].productId: no product with this id in the shop or the file",
                "orders[1].items[1].id: belongs to another shop",
                "orders[1].items[1].productId: no product with this id in the shop or the file",
                "lotteryTickets[0].id: belongs to another shop",
                "spins[0].id: belongs to another shop",
            ],
            "{}",
            t.backend()
        );
        assert_eq!(count_rows(&t, &a.id).await, [0; 6], "{}", t.backend());
        assert_eq!(count_rows(&t, &b.id).await, theirs, "{}", t.backend());
    }
}

#[tokio::test]
async fn an_item_of_another_order_is_refused() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        t.db.import(&a.id, sample(), at(1_000)).await.unwrap();

        let mut thief = order("o2", 0);
        thief.items = vec![item("i3", "p1"), item_of("i1", "p1", "p1-v1")];
        let data = ShopImport {
            orders: vec![no_stamps_order(thief, OrderConfidential::default())],
            ..ShopImport::default()
        };
        let shown = refusal(&t, &a, data).await;
        assert_eq!(
            shown,
            ["orders[0].items[1].id: belongs to another order"],
            "{}",
            t.backend()
        );
        let o1 = OrderId::parse("o1").unwrap();
        let still =
            t.db.find_order(&a.id, &o1, ReadFrom::Primary)
                .await
                .unwrap()
                .unwrap();
        assert_eq!(still.items.len(), 2, "{}", t.backend());
    }
}

#[tokio::test]
async fn dangling_references_are_refused_with_their_paths() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        // Stored in a: product p1 (variant p1-v0), client c1, order o-stored.
        let stored = ShopImport {
            products: vec![imported(product("p1"))],
            clients: vec![no_stamps_client(
                client("c1", "Marie"),
                ClientConfidential::default(),
            )],
            orders: vec![no_stamps_order(
                order("o-stored", 1),
                OrderConfidential::default(),
            )],
            ..ShopImport::default()
        };
        store(&t.db, &a, stored).await;
        // Stored in b: product pb, client cb, order ob.
        let theirs = ShopImport {
            products: vec![imported(product("pb"))],
            clients: vec![no_stamps_client(
                client("cb", "B"),
                ClientConfidential::default(),
            )],
            orders: vec![no_stamps_order(
                order("ob", 1),
                OrderConfidential::default(),
            )],
            ..ShopImport::default()
        };
        store(&t.db, &b, theirs).await;
        let before = count_rows(&t, &a.id).await;

        let mut ghost_client = order("o-a", 10);
        ghost_client.client_id = Some(ClientId::parse("ghost").unwrap());
        let mut bad_items = order("o-b", 10);
        bad_items.client_id = Some(ClientId::parse("cb").unwrap());
        bad_items.items = vec![
            item("i-1", "ghost-p"),
            item_of("i-2", "p1", "p2-v0"),
            item("i-3", "pb"),
            item_of("i-4", "p1", "ghost-v"),
        ];
        // Resolves: a stored client, a product of the file, a stored product and variant.
        let mut good = order("o-c", 10);
        good.client_id = Some(ClientId::parse("c1").unwrap());
        good.items = vec![item("i-5", "p2"), item("i-6", "p1")];
        let mut ghost_ticket = ticket("tk-1", "ghost", 0);
        ghost_ticket.order_id = Some(OrderId::parse("ghost-o").unwrap());
        let mut stored_refs = ticket("tk-2", "c1", 0);
        stored_refs.order_id = Some(OrderId::parse("o-stored").unwrap());
        let mut their_order = ticket("tk-3", "c-new", 0);
        their_order.order_id = Some(OrderId::parse("ob").unwrap());
        let mut their_client = spin("s-1", "cb", 0);
        their_client.order_id = Some(OrderId::parse("o-c").unwrap());
        let data = ShopImport {
            products: vec![imported(product("p2"))],
            clients: vec![no_stamps_client(
                client("c-new", "New"),
                ClientConfidential::default(),
            )],
            orders: [ghost_client, bad_items, good]
                .into_iter()
                .map(|o| no_stamps_order(o, OrderConfidential::default()))
                .collect(),
            lottery_tickets: vec![
                no_stamp(ghost_ticket),
                no_stamp(stored_refs),
                no_stamp(their_order),
            ],
            spins: vec![no_stamp(their_client)],
            ..ShopImport::default()
        };
        let mut valid = data.clone();

        let shown = refusal(&t, &a, data).await;
        let not_a_variant = "not a variant of product p1 in the shop or the file";
        assert_eq!(
            shown,
            [
                "orders[0].clientId: no client with this id in the shop or the file".to_owned(),
                "orders[1].clientId: no client with this id in the shop or the file".to_owned(),
                "orders[1].items[0].productId: no product with this id in the shop or the file"
                    .to_owned(),
                format!("orders[1].items[1].variantId: {not_a_variant}"),
                "orders[1].items[2].productId: no product with this id in the shop or the file"
                    .to_owned(),
                format!("orders[1].items[3].variantId: {not_a_variant}"),
                "lotteryTickets[0].clientId: no client with this id in the shop or the file"
                    .to_owned(),
                "lotteryTickets[0].orderId: no order with this id in the shop or the file"
                    .to_owned(),
                "lotteryTickets[2].orderId: no order with this id in the shop or the file"
                    .to_owned(),
                "spins[0].clientId: no client with this id in the shop or the file".to_owned(),
            ],
            "{}",
            t.backend()
        );
        assert_eq!(count_rows(&t, &a.id).await, before, "{}", t.backend());

        // Without the dangling rows, the same references resolve: to the file and to the shop.
        valid.orders.drain(..2);
        valid.lottery_tickets = vec![valid.lottery_tickets.remove(1)];
        valid.spins[0].event.client_id = ClientId::parse("c-new").unwrap();
        let report = t.db.import(&a.id, valid, at(3_000)).await.unwrap();
        assert_eq!(report.orders, counts(1, 0), "{}", t.backend());
        assert_eq!(report.lottery_tickets, counts(1, 0), "{}", t.backend());
        assert_eq!(report.spins, counts(1, 0), "{}", t.backend());
        let p1 = ProductId::parse("p1").unwrap();
        let o_c = OrderId::parse("o-c").unwrap();
        let found =
            t.db.find_order(&a.id, &o_c, ReadFrom::Primary)
                .await
                .unwrap()
                .unwrap();
        assert_eq!(found.items[1].product_id, p1, "{}", t.backend());
    }
}
