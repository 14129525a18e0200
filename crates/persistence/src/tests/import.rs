use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::ShopId;
use shop_domain::import::{ImportedProduct, ShopImport};
use shop_domain::loyalty::LoyaltyTier;
use shop_domain::money::Cents;
use shop_domain::shop::Shop;
use shop_ports::port::ReadFrom;
use shop_ports::port::{
    CatalogueRepository, ImportCounts, ImportReport, ImportRepository, ImportStoreError,
};

use super::fixtures::{
    at, brand, category, imported, product, store_products, tier, two_shops, variant,
};
use super::{TestDb, test_databases};
use crate::database::with_conn;
use crate::schema::{categories, loyalty_tiers, products, variants};

fn file(products: Vec<ImportedProduct>, tiers: Vec<LoyaltyTier>) -> ShopImport {
    ShopImport {
        tiers,
        products,
        ..ShopImport::default()
    }
}

/// Products and tiers written and unchanged, the other kinds untouched.
fn catalogue_report(products: (usize, usize), tiers: (usize, usize)) -> ImportReport {
    ImportReport {
        products: ImportCounts {
            written: products.0,
            unchanged: products.1,
        },
        tiers: ImportCounts {
            written: tiers.0,
            unchanged: tiers.1,
        },
        ..ImportReport::default()
    }
}

fn sample() -> ShopImport {
    let mut scarf = product("p1");
    scarf.category = category("c1", "Scarves");
    scarf.brand = brand("b1", "Acme");
    scarf.variants = vec![variant("p1-v0", 0), variant("p1-v1", 1)];
    let hat = product("p2");
    file(
        vec![imported(scarf), imported(hat)],
        vec![tier("t1", 0), tier("t2", 500)],
    )
}

async fn import(t: &TestDb, shop: &Shop, data: ShopImport, now: Timestamp) -> ImportReport {
    t.db.import(&shop.id, data, now).await.unwrap()
}

/// (products, variants, categories, tiers) stored for the shop.
async fn count_rows(t: &TestDb, shop: &ShopId) -> (i64, i64, i64, i64) {
    let shop = shop.as_str();
    let products = with_conn!(&t.db, |conn| products::table
        .filter(products::shop_id.eq(shop))
        .count()
        .get_result::<i64>(conn)
        .await);
    let variants = with_conn!(&t.db, |conn| variants::table
        .filter(variants::shop_id.eq(shop))
        .count()
        .get_result::<i64>(conn)
        .await);
    let categories = with_conn!(&t.db, |conn| categories::table
        .filter(categories::shop_id.eq(shop))
        .count()
        .get_result::<i64>(conn)
        .await);
    let tiers = with_conn!(&t.db, |conn| loyalty_tiers::table
        .filter(loyalty_tiers::shop_id.eq(shop))
        .count()
        .get_result::<i64>(conn)
        .await);
    (
        products.unwrap(),
        variants.unwrap(),
        categories.unwrap(),
        tiers.unwrap(),
    )
}

#[tokio::test]
async fn reimporting_the_same_file_changes_nothing() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let first = import(&t, &a, sample(), at(1_000)).await;
        let expected = catalogue_report((2, 0), (2, 0));
        assert_eq!(first, expected, "{}", t.backend());
        let before =
            t.db.list_products(&a.id, &Default::default(), ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(before[0].updated_at, at(1_000));

        let second = import(&t, &a, sample(), at(9_000)).await;
        let expected = catalogue_report((0, 2), (0, 2));
        assert_eq!(second, expected, "{}", t.backend());
        let after =
            t.db.list_products(&a.id, &Default::default(), ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(after, before, "{}", t.backend());
        assert_eq!(count_rows(&t, &a.id).await, (2, 3, 1, 2), "{}", t.backend());
    }
}

#[tokio::test]
async fn a_changed_product_is_rewritten_and_keeps_its_creation_time() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        import(&t, &a, sample(), at(1_000)).await;

        let mut changed = sample();
        changed.products[0].product.price = Cents(9_999);
        changed.products[0].product.ean = None;
        if let Some(renamed) = &mut changed.products[0].product.category {
            renamed.name = "Winter scarves".into();
        }
        changed.tiers[1].min_points_lifetime = 600;
        let report = import(&t, &a, changed, at(2_000)).await;
        let expected = catalogue_report((1, 1), (1, 1));
        assert_eq!(report, expected, "{}", t.backend());

        let stored = &t
            .db
            .list_products(&a.id, &Default::default(), ReadFrom::Primary)
            .await
            .unwrap()[0];
        assert_eq!(stored.price, Cents(9_999));
        assert_eq!(stored.ean, None, "{}: None clears the column", t.backend());
        assert_eq!(
            stored.category.as_ref().map(|c| c.name.as_str()),
            Some("Winter scarves")
        );
        assert_eq!(
            (stored.created_at, stored.updated_at),
            (at(1_000), at(2_000))
        );
    }
}

#[tokio::test]
async fn variants_missing_from_the_file_are_kept() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        import(&t, &a, sample(), at(1_000)).await;

        let mut partial = product("p1");
        partial.category = category("c1", "Scarves");
        partial.brand = brand("b1", "Acme");
        partial.variants = vec![variant("p1-v1", 1), variant("p1-v2", 2)];
        partial.variants[0].stock = 99;
        import(&t, &a, file(vec![imported(partial)], vec![]), at(2_000)).await;

        let stored = &t
            .db
            .list_products(&a.id, &Default::default(), ReadFrom::Primary)
            .await
            .unwrap()[0];
        let kept: Vec<_> = stored
            .variants
            .iter()
            .map(|v| (v.id.as_str(), v.stock))
            .collect();
        assert_eq!(
            kept,
            [("p1-v0", 4), ("p1-v1", 99), ("p1-v2", 4)],
            "{}",
            t.backend()
        );
    }
}

#[tokio::test]
async fn ids_of_another_shop_are_refused_and_nothing_is_written() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        import(&t, &b, sample(), at(1_000)).await;

        let mut fresh = product("mine");
        fresh.variants = vec![variant("mine-v0", 0), variant("p1-v1", 1)];
        fresh.category = category("c1", "Theirs");
        fresh.brand = brand("b-mine", "Mine");
        let mut taken = product("p1");
        taken.brand = brand("b1", "Theirs");
        let data = file(
            vec![imported(fresh), imported(taken)],
            vec![tier("t-mine", 0), tier("t2", 1)],
        );
        let refused = t.db.import(&a.id, data, at(2_000)).await;
        let Err(ImportStoreError::Rejected(problems)) = refused else {
            panic!("{}: expected foreign ids, got {refused:?}", t.backend());
        };
        let shown: Vec<_> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "products[0].category.id: belongs to another shop",
                "products[0].variants[1].id: belongs to another shop",
                "products[1].id: belongs to another shop",
                "products[1].brand.id: belongs to another shop",
                "products[1].variants[0].id: belongs to another shop",
                "loyaltyTiers[1].id: belongs to another shop",
            ],
            "{}",
            t.backend()
        );
        assert_eq!(count_rows(&t, &a.id).await, (0, 0, 0, 0), "{}", t.backend());
        assert_eq!(count_rows(&t, &b.id).await, (2, 3, 1, 2), "{}", t.backend());
    }
}

#[tokio::test]
async fn a_variant_of_another_product_is_refused() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        store_products(&t.db, &a, vec![imported(product("p1"))]).await;

        let mut thief = product("p2");
        thief.variants = vec![variant("p1-v0", 0)];
        let refused =
            t.db.import(&a.id, file(vec![imported(thief)], vec![]), at(2_000))
                .await;
        let Err(ImportStoreError::Rejected(problems)) = refused else {
            panic!("{}: expected a refusal, got {refused:?}", t.backend());
        };
        let shown: Vec<_> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            ["products[0].variants[0].id: belongs to another product"]
        );
        assert_eq!(count_rows(&t, &a.id).await.0, 1, "{}", t.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_imports_all_commit() {
    // On SQLite, BEGIN IMMEDIATE plus busy_timeout make writers queue instead of failing with
    // "database is locked".
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let tasks: Vec<_> = (0..16)
            .map(|n| {
                let db = t.db.clone();
                let shop = a.id.clone();
                let data = file(vec![imported(product(&format!("c{n:02}")))], vec![]);
                tokio::spawn(async move { db.import(&shop, data, at(1_000)).await })
            })
            .collect();
        for task in tasks {
            let report = task.await.unwrap();
            assert!(report.is_ok(), "{}: {report:?}", t.backend());
        }
        assert_eq!(count_rows(&t, &a.id).await.0, 16, "{}", t.backend());
    }
}
