mod search;

use shop_ports::port::ReadFrom;
use std::sync::atomic::Ordering;

use diesel_async::{AsyncConnection, AsyncPgConnection};
use shop_domain::catalogue::{ActiveFilter, Product, ProductListQuery};
use shop_domain::id::{BrandId, CategoryId, ProductId};
use shop_domain::pagination::PageLimit;
use shop_domain::text::SearchTerm;
use shop_ports::port::CatalogueRepository;

use super::fixtures::{
    at, brand, category, imported, imported_at, product, store_products, two_shops, variant,
};
use super::{cache_counter, counter, test_databases};
use crate::DatabaseUrl;
use crate::catalogue::{CatalogueQueries, Selection};
use crate::database::SqliteConn;

fn ids(products: &[Product]) -> Vec<&str> {
    products.iter().map(|p| p.id.as_str()).collect()
}

fn query() -> ProductListQuery {
    ProductListQuery {
        active: ActiveFilter::All,
        ..ProductListQuery::default()
    }
}

fn search(term: &str) -> ProductListQuery {
    ProductListQuery {
        search: SearchTerm::parse(term).unwrap(),
        ..query()
    }
}

#[tokio::test]
async fn pages_follow_byte_order_of_ids_with_a_keyset() {
    // Byte order; an ICU or en_US collation would put `a` before `B` and `a_b` before `a-b`.
    let expected = ["B", "Z1", "a", "a-b", "a_b", "ab", "b"];
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let mut shuffled = expected.to_vec();
        shuffled.reverse();
        store_products(
            &t.db,
            &a,
            shuffled
                .into_iter()
                .map(|id| imported(product(id)))
                .collect(),
        )
        .await;

        let mut seen = Vec::new();
        let mut page = ProductListQuery {
            limit: PageLimit::new(2).unwrap(),
            ..query()
        };
        loop {
            let rows =
                t.db.list_products(&a.id, &page, ReadFrom::Primary)
                    .await
                    .unwrap();
            assert!(rows.len() <= 3, "{}: overfetch is limit + 1", t.backend());
            let has_more = rows.len() == 3;
            seen.extend(rows.into_iter().take(2).map(|p| p.id.into_string()));
            if !has_more {
                break;
            }
            page.after = seen.last().map(|id| ProductId::parse(id.as_str()).unwrap());
        }
        assert_eq!(seen, expected, "{}", t.backend());
    }
}

#[tokio::test]
async fn each_filter_narrows_the_list() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let mut shoe = product("p1");
        shoe.name = "Chaussure Rouge".into();
        shoe.product_type = "variable".into();
        shoe.category = category("c-shoes", "Shoes");
        shoe.brand = brand("b-acme", "Acme");
        let mut scarf = product("p2");
        scarf.name = "Écharpe".into();
        scarf.category = category("c-winter", "Winter");
        scarf.variants = vec![variant("barcode-holder", 0)];
        scarf.variants[0].barcode = Some("9990001".into());
        let mut old = product("p3");
        old.active = false;
        old.brand = brand("b-acme", "Acme");
        store_products(
            &t.db,
            &a,
            vec![
                imported_at(shoe, 1, 1_000),
                imported_at(scarf, 1, 2_000),
                imported_at(old, 1, 3_000),
            ],
        )
        .await;
        let list = |q: ProductListQuery| {
            let db = t.db.clone();
            let shop = a.id.clone();
            async move {
                db.list_products(&shop, &q, ReadFrom::Primary)
                    .await
                    .unwrap()
            }
        };
        let backend = t.backend();

        let by_category = ProductListQuery {
            category: Some(CategoryId::parse("c-shoes").unwrap()),
            ..query()
        };
        assert_eq!(ids(&list(by_category).await), ["p1"], "{backend}");
        let by_brand = ProductListQuery {
            brand: Some(BrandId::parse("b-acme").unwrap()),
            ..query()
        };
        assert_eq!(ids(&list(by_brand).await), ["p1", "p3"], "{backend}");
        let by_type = ProductListQuery {
            product_type: Some("variable".into()),
            ..query()
        };
        assert_eq!(ids(&list(by_type).await), ["p1"], "{backend}");
        let active = ProductListQuery {
            active: ActiveFilter::Active,
            ..query()
        };
        assert_eq!(ids(&list(active).await), ["p1", "p2"], "{backend}");
        let inactive = ProductListQuery {
            active: ActiveFilter::Inactive,
            ..query()
        };
        assert_eq!(ids(&list(inactive).await), ["p3"], "{backend}");
        assert_eq!(ids(&list(query()).await), ["p1", "p2", "p3"], "{backend}");
        let since = ProductListQuery {
            updated_since: Some(at(2_000)),
            ..query()
        };
        assert_eq!(ids(&list(since).await), ["p2", "p3"], "{backend}");
        // Case-folded name, non-ASCII included, and a variant's barcode.
        assert_eq!(ids(&list(search("CHAUSSURE")).await), ["p1"], "{backend}");
        assert_eq!(ids(&list(search("ÉCHARPE")).await), ["p2"], "{backend}");
        assert_eq!(ids(&list(search("9990001")).await), ["p2"], "{backend}");
        let combined = ProductListQuery {
            brand: Some(BrandId::parse("b-acme").unwrap()),
            active: ActiveFilter::Active,
            ..query()
        };
        assert_eq!(ids(&list(combined).await), ["p1"], "{backend}");
    }
}

#[tokio::test]
async fn like_wildcards_in_a_search_are_literal() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let named = |id: &str, name: &str| {
            let mut p = product(id);
            p.name = name.into();
            p.ean = None;
            p.sku = None;
            p.variants.clear();
            imported(p)
        };
        store_products(
            &t.db,
            &a,
            vec![
                named("p1", "50% off"),
                named("p2", "500 items"),
                named("p3", "snake_case"),
                named("p4", "snakexcase"),
                named("p5", "back\\slash"),
            ],
        )
        .await;
        let found = |term: &str| {
            let db = t.db.clone();
            let shop = a.id.clone();
            let q = search(term);
            async move {
                db.list_products(&shop, &q, ReadFrom::Primary)
                    .await
                    .unwrap()
            }
        };
        assert_eq!(ids(&found("50%").await), ["p1"], "{}", t.backend());
        assert_eq!(ids(&found("%").await), ["p1"], "{}", t.backend());
        assert_eq!(ids(&found("e_c").await), ["p3"], "{}", t.backend());
        assert_eq!(ids(&found("k\\s").await), ["p5"], "{}", t.backend());
    }
}

#[tokio::test]
async fn another_shops_products_are_invisible() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        store_products(&t.db, &a, vec![imported(product("pa"))]).await;
        store_products(&t.db, &b, vec![imported(product("pb"))]).await;

        assert_eq!(
            ids(&t
                .db
                .list_products(&a.id, &query(), ReadFrom::Primary)
                .await
                .unwrap()),
            ["pa"]
        );
        let theirs = ProductId::parse("pb").unwrap();
        assert_eq!(
            t.db.find_product(&a.id, &theirs, ReadFrom::Primary)
                .await
                .unwrap(),
            None,
            "{}",
            t.backend()
        );
        assert!(
            t.db.find_product(&b.id, &theirs, ReadFrom::Primary)
                .await
                .unwrap()
                .is_some()
        );
    }
}

#[tokio::test]
async fn find_product_has_every_variant_in_display_order() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let mut stored = product("p1");
        stored.category = category("c1", "Scarves");
        stored.brand = brand("b1", "Acme");
        stored.ean = None;
        stored.compare_at_price = None;
        stored.variants = vec![variant("v-c", 1), variant("v-b", 0), variant("v-a", 1)];
        stored.variants[0].active = false;
        stored.variants[1].swatch_color = None;
        store_products(&t.db, &a, vec![imported_at(stored.clone(), 10, 20)]).await;

        let found =
            t.db.find_product(&a.id, &stored.id, ReadFrom::Primary)
                .await
                .unwrap()
                .unwrap();
        let order: Vec<_> = found.variants.iter().map(|v| v.id.as_str()).collect();
        assert_eq!(order, ["v-b", "v-a", "v-c"], "{}", t.backend());
        let mut expected = stored;
        expected.created_at = at(10);
        expected.updated_at = at(20);
        expected.sort_variants();
        assert_eq!(found, expected, "{}", t.backend());
    }
}

#[tokio::test]
async fn a_page_costs_one_statement_whatever_its_size() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let many = (0..30)
            .map(|n| {
                let mut p = product(&format!("p{n:02}"));
                p.variants = (0..3)
                    .map(|v| variant(&format!("p{n:02}-v{v}"), v))
                    .collect();
                imported(p)
            })
            .collect();
        store_products(&t.db, &a, many).await;
        let page = ProductListQuery {
            limit: PageLimit::new(25).unwrap(),
            ..query()
        };
        let (count, instrumentation) = counter();
        let loaded = match &t.url {
            DatabaseUrl::Sqlite(path) => {
                let mut conn = SqliteConn::establish(path.to_str().unwrap()).await.unwrap();
                conn.set_instrumentation(instrumentation);
                conn.load_products(&a.id, Selection::Page(&page))
                    .await
                    .unwrap()
            }
            DatabaseUrl::Postgres(url) => {
                let mut conn = AsyncPgConnection::establish(url).await.unwrap();
                conn.set_instrumentation(instrumentation);
                conn.load_products(&a.id, Selection::Page(&page))
                    .await
                    .unwrap()
            }
        };
        // 26 asked for, `LIMIT 31` written (first_rows.rs): all 30; `list_products` keeps 26.
        assert_eq!(loaded.len(), 30, "{}", t.backend());
        assert!(loaded.iter().all(|p| p.variants.len() == 3));
        assert_eq!(count.load(Ordering::SeqCst), 1, "{}", t.backend());
    }
}

/// The page query is prepared once per connection and reused: a statement diesel may not
/// cache (an SQL literal in it) is compiled on every request, and on PostgreSQL planned anew
/// each time, which multiplied PostgreSQL's CPU per products page (see
/// docs/performance-log.md, "A page query prepared once").
#[tokio::test]
async fn the_page_query_is_prepared_once_per_connection() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let products = (0..3)
            .map(|n| imported(product(&format!("p{n}"))))
            .collect();
        store_products(&t.db, &a, products).await;
        let page = ProductListQuery {
            limit: PageLimit::new(2).unwrap(),
            ..query()
        };
        let (cached, instrumentation) = cache_counter();
        let mut after_each = Vec::new();
        match &t.url {
            DatabaseUrl::Sqlite(path) => {
                let mut conn = SqliteConn::establish(path.to_str().unwrap()).await.unwrap();
                conn.set_instrumentation(instrumentation);
                for _ in 0..2 {
                    conn.load_products(&a.id, Selection::Page(&page))
                        .await
                        .unwrap();
                    after_each.push(cached.load(Ordering::SeqCst));
                }
            }
            DatabaseUrl::Postgres(url) => {
                let mut conn = AsyncPgConnection::establish(url).await.unwrap();
                conn.set_instrumentation(instrumentation);
                for _ in 0..2 {
                    conn.load_products(&a.id, Selection::Page(&page))
                        .await
                        .unwrap();
                    after_each.push(cached.load(Ordering::SeqCst));
                }
            }
        }
        let backend = t.backend();
        assert!(
            after_each[0] >= 1,
            "{backend}: nothing cached: {after_each:?}"
        );
        assert_eq!(after_each[0], after_each[1], "{backend}: prepared again");
    }
}
