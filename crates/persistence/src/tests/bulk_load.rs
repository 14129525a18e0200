//! The bulk loader: what it writes reads back through the API's repositories, searches
//! included, on both databases; an id already stored fails its whole batch.

use shop_domain::catalogue::{ActiveFilter, Product, ProductListQuery};
use shop_domain::client::{Client, ClientListQuery, ClientSearch};
use shop_domain::id::{OrderId, ProductId, ShopId};
use shop_domain::order::Order;
use shop_domain::pagination::PageLimit;
use shop_domain::stock::StockListQuery;
use shop_domain::text::SearchTerm;
use shop_ports::StoreError;
use shop_ports::port::ReadFrom;
use shop_ports::port::{
    CatalogueRepository, ClientRepository, LoyaltyRepository, OrderRepository, StockRepository,
};
use shop_seed::{BulkBatch, BulkLoader};

use super::fixtures::{
    at, brand, category, client, item, order, product, spin, ticket, tier, two_shops, variant,
};
use super::test_databases;

/// More rows of each wide table than one statement holds on either database (its bind limit,
/// `SQLITE_MAX_BINDS` or `POSTGRES_MAX_BINDS`, over the row's columns), so that every batch
/// takes several statements: a column count below the row's makes a statement of more binds
/// than PostgreSQL's protocol can carry, and fails here.
const PRODUCTS: usize = 3_400;
const CLIENTS: usize = 2_800;
const ORDERS: usize = 4_400;

fn product_at(n: usize) -> Product {
    let id = format!("bulk-p{n:05}");
    let mut product = product(&id);
    product.name = format!("Plaid en laine n{n:05}");
    product.ean = Some(format!("376{n:010}"));
    product.sku = Some(format!("PLD-{n:05}"));
    product.category = category("bulk-cat0", "Textile");
    product.brand = if n.is_multiple_of(2) {
        brand("bulk-b0", "Atelier Nord")
    } else {
        None
    };
    product.variants = (0..1 + n % 3)
        .map(|v| variant(&format!("{id}-v{v}"), v as i32))
        .collect();
    product.created_at = at(n as i64);
    product.updated_at = at(n as i64 + 1);
    product
}

fn client_at(n: usize) -> Client {
    let mut client = client(&format!("bulk-c{n:05}"), &format!("Camille Martin {n:05}"));
    client.phone = Some(format!(
        "06 12 {:02} {:02} {:02}",
        n / 10_000,
        (n / 100) % 100,
        n % 100
    ));
    client.email = Some(format!("camille.martin{n}@example.com"));
    client
}

fn order_at(n: usize) -> Order {
    let id = format!("bulk-o{n:05}");
    let mut order = order(&id, 10_000 + n as i64);
    order.client_id = n.is_multiple_of(2).then(|| client_at(n % CLIENTS).id);
    order.items = (0..2)
        .map(|k| {
            let mut line = item(
                &format!("{id}-i{k}"),
                &format!("bulk-p{:05}", (n + k) % PRODUCTS),
            );
            line.product_name = format!("Plaid en laine n{:05}", (n + k) % PRODUCTS);
            line
        })
        .collect();
    order
}

/// The catalogue and clients, then the orders and what refers to them.
pub(super) fn batches() -> [BulkBatch; 2] {
    let first = BulkBatch {
        tiers: vec![tier("bulk-t0", 0), tier("bulk-t1", 500)],
        categories: category("bulk-cat0", "Textile").into_iter().collect(),
        brands: brand("bulk-b0", "Atelier Nord").into_iter().collect(),
        products: (0..PRODUCTS).map(product_at).collect(),
        clients: (0..CLIENTS).map(client_at).collect(),
        ..BulkBatch::default()
    };
    let with_order = |mut event: shop_domain::loyalty::LotteryTicket| {
        event.order_id = OrderId::parse("bulk-o00000").ok();
        event
    };
    let second = BulkBatch {
        orders: (0..ORDERS).map(order_at).collect(),
        lottery_tickets: (0..12)
            .map(|n| with_order(ticket(&format!("bulk-t{n:02}"), "bulk-c00000", n)))
            .collect(),
        spins: vec![spin("bulk-s00", "bulk-c00000", 3)],
        ..BulkBatch::default()
    };
    [first, second]
}

#[tokio::test]
async fn a_bulk_loaded_shop_reads_back_like_an_imported_one() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, b) = two_shops(&t.db).await;
        assert!(!t.db.shop_has_data(&a.id).await.unwrap(), "{backend}");
        for batch in batches() {
            t.db.insert_batch(&a.id, batch).await.unwrap();
        }
        t.db.analyze().await.unwrap();
        assert!(t.db.shop_has_data(&a.id).await.unwrap(), "{backend}");
        assert!(!t.db.shop_has_data(&b.id).await.unwrap(), "{backend}");

        // A product, its variants, category and brand, exactly as given.
        let id = ProductId::parse("bulk-p01234").unwrap();
        let stored =
            t.db.find_product(&a.id, &id, ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(stored, Some(product_at(1_234)), "{backend}");
        assert_eq!(
            t.db.find_product(&b.id, &id, ReadFrom::Primary)
                .await
                .unwrap(),
            None
        );

        // A page in id order, and `q` by a word of the name or a variant code.
        let page = ProductListQuery {
            active: ActiveFilter::All,
            limit: PageLimit::new(20).unwrap(),
            ..ProductListQuery::default()
        };
        let listed =
            t.db.list_products(&a.id, &page, ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(listed.len(), 21, "{backend}");
        assert_eq!(listed[20], product_at(20), "{backend}");
        for term in ["N01234", "sku-bulk-p01234-v1"] {
            let search = ProductListQuery {
                search: SearchTerm::parse(term).unwrap(),
                ..page.clone()
            };
            let found =
                t.db.list_products(&a.id, &search, ReadFrom::Primary)
                    .await
                    .unwrap();
            let ids: Vec<&str> = found.iter().map(|p| p.id.as_str()).collect();
            assert_eq!(ids, ["bulk-p01234"], "{backend} {term}");
        }

        // Stock search over the per-variant search text.
        let stock = StockListQuery {
            search: SearchTerm::parse("PLD-01234").unwrap(),
            ..StockListQuery::default()
        };
        let entries =
            t.db.list_stock(&a.id, &stock, ReadFrom::Primary)
                .await
                .unwrap();
        let variants: Vec<&str> = entries.iter().map(|e| e.variant_id.as_str()).collect();
        assert_eq!(variants, ["bulk-p01234-v0", "bulk-p01234-v1"], "{backend}");

        // An order with its items, confidential columns left empty.
        let id = OrderId::parse("bulk-o02199").unwrap();
        let stored =
            t.db.find_order(&a.id, &id, ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(stored, Some(order_at(2_199)), "{backend}");

        // A client found by its phone written another way, and by its e-mail.
        for term in ["+33 6 12 00 12 34", "camille.martin1234@"] {
            let query = ClientListQuery {
                search: ClientSearch::parse(term).unwrap(),
                ..ClientListQuery::default()
            };
            let found =
                t.db.list_clients(&a.id, &query, ReadFrom::Primary)
                    .await
                    .unwrap();
            assert_eq!(found, [client_at(1_234)], "{backend} {term}");
        }

        // Tickets and spins of a client.
        let client = client_at(0).id;
        let tickets =
            t.db.recent_tickets(&a.id, &client, 10, ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(tickets.len(), 10, "{backend}");
        assert_eq!(tickets[0].id.as_str(), "bulk-t11", "{backend}");
        let spins =
            t.db.recent_spins(&a.id, &client, 10, ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(spins.len(), 1, "{backend}");
    }
}

#[tokio::test]
async fn an_id_already_stored_fails_its_whole_batch() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, b) = two_shops(&t.db).await;
        let only = |products: Vec<Product>| BulkBatch {
            products,
            ..BulkBatch::default()
        };
        t.db.insert_batch(&a.id, only(vec![product("p1")]))
            .await
            .unwrap();
        // Ids are global: another shop cannot take it either.
        for shop in [&a.id, &b.id] {
            let result =
                t.db.insert_batch(shop, only(vec![product("p2"), product("p1")]))
                    .await;
            assert!(
                matches!(result, Err(StoreError::Conflict { .. })),
                "{backend}: {result:?}"
            );
            let p2 = ProductId::parse("p2").unwrap();
            assert_eq!(
                t.db.find_product(shop, &p2, ReadFrom::Primary)
                    .await
                    .unwrap(),
                None,
                "{backend}"
            );
        }
        assert!(
            !t.db
                .shop_has_data(&ShopId::parse("nope").unwrap())
                .await
                .unwrap()
        );
    }
}
