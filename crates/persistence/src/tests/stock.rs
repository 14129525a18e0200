//! `GET /stock`'s query: keyset, shop scoping, filters, search, and the search text's backfill.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::catalogue::Product;
use shop_domain::id::{ProductId, VariantId};
use shop_domain::pagination::PageLimit;
use shop_domain::stock::{StockEntry, StockListQuery};
use shop_domain::text::SearchTerm;
use shop_ports::port::ReadFrom;
use shop_ports::port::StockRepository;

use super::fixtures::{at, imported, product, store_products, two_shops, untracked, variant};
use super::{TestDb, test_databases};
use crate::database::migrate;
use crate::database::with_conn;
use crate::schema::variants;
use crate::{Database, PoolOptions};

fn ids(entries: &[StockEntry]) -> Vec<&str> {
    entries.iter().map(|e| e.variant_id.as_str()).collect()
}

/// Every entry, tracked or not.
fn all() -> StockListQuery {
    StockListQuery {
        tracked_only: false,
        ..StockListQuery::default()
    }
}

fn search(term: &str) -> StockListQuery {
    StockListQuery {
        search: SearchTerm::parse(term).unwrap(),
        ..all()
    }
}

/// A product whose variants have these ids, stocks and thresholds (in that display order).
fn stocked(id: &str, variants: &[(&str, i64, i64)]) -> Product {
    let mut p = product(id);
    p.variants = variants
        .iter()
        .zip(0..)
        .map(|(&(vid, stock, threshold), order)| {
            let mut v = variant(vid, order);
            v.stock = stock;
            v.low_stock_threshold = threshold;
            v
        })
        .collect();
    p
}

async fn list(t: &TestDb, shop: &str, query: StockListQuery) -> Vec<StockEntry> {
    let shop = shop_domain::id::ShopId::parse(shop).unwrap();
    t.db.list_stock(&shop, &query, ReadFrom::Primary)
        .await
        .unwrap()
}

#[tokio::test]
async fn pages_follow_variant_ids_within_the_shop() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        // Byte order across products: `B` < `a` < `a_b` < `b`, whatever the display order.
        let first = stocked("p1", &[("b", 1, 0), ("B", 1, 0)]);
        let second = stocked("p2", &[("a_b", 1, 0), ("a", 1, 0)]);
        store_products(&t.db, &a, vec![imported(first), imported(second)]).await;
        store_products(&t.db, &b, vec![imported(stocked("pb", &[("A", 1, 0)]))]).await;

        let mut seen = Vec::new();
        let mut page = StockListQuery {
            limit: PageLimit::new(3).unwrap(),
            ..all()
        };
        loop {
            let rows = list(&t, "shop_a", page.clone()).await;
            assert!(rows.len() <= 4, "{}: overfetch is limit + 1", t.backend());
            let has_more = rows.len() == 4;
            seen.extend(rows.into_iter().take(3).map(|e| e.variant_id));
            if !has_more {
                break;
            }
            page.after = seen.last().cloned();
        }
        let seen: Vec<&str> = seen.iter().map(VariantId::as_str).collect();
        assert_eq!(seen, ["B", "a", "a_b", "b"], "{}", t.backend());

        let one_product = StockListQuery {
            product_id: Some(ProductId::parse("p2").unwrap()),
            ..all()
        };
        assert_eq!(
            ids(&list(&t, "shop_a", one_product.clone()).await),
            ["a", "a_b"]
        );
        // Another shop's product id selects nothing.
        assert!(list(&t, "shop_b", one_product).await.is_empty());
        assert_eq!(
            ids(&list(&t, "shop_b", all()).await),
            ["A"],
            "{}",
            t.backend()
        );
    }
}

#[tokio::test]
async fn entries_carry_their_product_and_variant() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let p = stocked("p1", &[("v1", 7, 3)]);
        store_products(&t.db, &a, vec![imported(p)]).await;
        let entries = list(&t, "shop_a", all()).await;
        assert_eq!(
            entries,
            [StockEntry {
                variant_id: VariantId::parse("v1").unwrap(),
                product_id: ProductId::parse("p1").unwrap(),
                product_name: "Product p1".into(),
                variant_label: "Variant v1".into(),
                sku: Some("SKU-v1".into()),
                barcode: Some("370000".into()),
                tracked: true,
                stock: 7,
                low_stock_threshold: 3,
                active: true,
                // The import's time: the entry is new.
                updated_at: at(5_000),
            }],
            "{}",
            t.backend()
        );
    }
}

#[tokio::test]
async fn low_stock_and_tracking_filters_at_the_edges() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        // Threshold 2: 3 is above, 2 is at it (low), 0 is out (and low), -1 below zero.
        let tracked = stocked(
            "p1",
            &[("above", 3, 2), ("at", 2, 2), ("out", 0, 2), ("neg", -1, 2)],
        );
        let untracked = untracked(stocked("p2", &[("free", -5, 2)]));
        store_products(&t.db, &a, vec![imported(tracked), imported(untracked)]).await;
        let backend = t.backend();

        let default = list(&t, "shop_a", StockListQuery::default()).await;
        assert_eq!(ids(&default), ["above", "at", "neg", "out"], "{backend}");
        let everything = list(&t, "shop_a", all()).await;
        assert_eq!(
            ids(&everything),
            ["above", "at", "free", "neg", "out"],
            "{backend}"
        );
        let free = everything.iter().find(|e| e.variant_id.as_str() == "free");
        assert!(free.is_some_and(|e| !e.tracked && !e.is_low_stock() && !e.is_out_of_stock()));

        let low = StockListQuery {
            low_stock_only: true,
            ..StockListQuery::default()
        };
        let low = list(&t, "shop_a", low).await;
        assert_eq!(ids(&low), ["at", "neg", "out"], "{backend}");
        assert!(low.iter().all(StockEntry::is_low_stock));
        // An untracked variant is never low, even when untracked ones are asked for.
        let low_of_all = StockListQuery {
            low_stock_only: true,
            ..all()
        };
        assert_eq!(
            ids(&list(&t, "shop_a", low_of_all).await),
            ["at", "neg", "out"]
        );
    }
}

#[tokio::test]
async fn active_needs_both_the_variant_and_its_product() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let mut on = stocked("p1", &[("on", 1, 0), ("off", 1, 0)]);
        on.variants[1].active = false;
        let mut hidden = stocked("p2", &[("under-off", 1, 0)]);
        hidden.active = false;
        store_products(&t.db, &a, vec![imported(on), imported(hidden)]).await;
        let entries = list(&t, "shop_a", all()).await;
        let active: Vec<(&str, bool)> = entries
            .iter()
            .map(|e| (e.variant_id.as_str(), e.active))
            .collect();
        assert_eq!(
            active,
            [("off", false), ("on", true), ("under-off", false)],
            "{}",
            t.backend()
        );
    }
}

#[tokio::test]
async fn search_finds_product_codes_and_the_variants_own_codes() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        let mut scarf = stocked("p1", &[("v1", 1, 0), ("v2", 1, 0)]);
        scarf.name = "Écharpe Laine".into();
        scarf.ean = Some("3760000000017".into());
        scarf.sku = Some("REF-SCARF".into());
        scarf.variants[0].sku = Some("SC-RED".into());
        scarf.variants[0].barcode = Some("111222".into());
        scarf.variants[1].sku = Some("SC-BLUE".into());
        scarf.variants[1].barcode = Some("333444".into());
        let mut other = stocked("p2", &[("w1", 1, 0)]);
        other.name = "Bonnet".into();
        other.ean = None;
        other.sku = None;
        store_products(&t.db, &a, vec![imported(scarf), imported(other)]).await;
        let mut theirs = stocked("pb", &[("x1", 1, 0)]);
        theirs.name = "Écharpe".into();
        store_products(&t.db, &b, vec![imported(theirs)]).await;
        let found = |term: &'static str| {
            let t = &t;
            async move {
                list(t, "shop_a", search(term))
                    .await
                    .iter()
                    .map(|e| e.variant_id.as_str().to_owned())
                    .collect::<Vec<_>>()
            }
        };
        let backend = t.backend();
        // The product's name (case-folded, accents included), EAN and SKU: every variant.
        assert_eq!(found("ÉCHARPE").await, ["v1", "v2"], "{backend}");
        assert_eq!(found("0000000017").await, ["v1", "v2"], "{backend}");
        assert_eq!(found("ref-scarf").await, ["v1", "v2"], "{backend}");
        // A variant's SKU and barcode: that variant only, not its sibling.
        assert_eq!(found("sc-red").await, ["v1"], "{backend}");
        assert_eq!(found("333444").await, ["v2"], "{backend}");
        assert!(found("nothing").await.is_empty(), "{backend}");
    }
}

#[tokio::test]
async fn renaming_a_product_refreshes_the_variants_the_file_leaves_out() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let first = stocked("p1", &[("v1", 1, 0), ("v2", 1, 0)]);
        store_products(&t.db, &a, vec![imported(first)]).await;
        // The new file names only v1: v2 is kept as stored, yet searchable by the new name.
        let mut renamed = stocked("p1", &[("v1", 1, 0)]);
        renamed.name = "Gilet".into();
        store_products(&t.db, &a, vec![imported(renamed)]).await;
        assert_eq!(
            ids(&list(&t, "shop_a", search("gilet")).await),
            ["v1", "v2"],
            "{}",
            t.backend()
        );
        assert!(list(&t, "shop_a", search("product p1")).await.is_empty());
    }
}

#[tokio::test]
async fn the_migration_backfills_the_search_text_of_existing_variants() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let mut p = stocked("p1", &[("v1", 1, 0)]);
        p.name = "Pull ÉTÉ".into();
        p.sku = None;
        p.variants[0].barcode = None;
        store_products(&t.db, &a, vec![imported(p)]).await;
        // As if the variants had been written before the stock migration (and the later ones).
        let reverted = migrate::revert_through(&t.url, "2026-11-21-110000")
            .await
            .unwrap();
        assert!(reverted >= 1);
        assert_eq!(migrate::run_pending(&t.url).await.unwrap(), reverted);
        let db = Database::open(&t.url, PoolOptions::default())
            .await
            .unwrap();
        let text = with_conn!(&db, |conn| variants::table
            .filter(variants::id.eq("v1"))
            .select(variants::search_text)
            .first::<String>(conn)
            .await)
        .unwrap();
        // Name, EAN and the variant's SKU, newline-joined, no empty part for the missing
        // codes. SQLite's lower() folds ASCII only; PostgreSQL's follows the database's locale.
        let (name, rest) = text.split_once('\n').unwrap();
        assert!(
            ["pull été", "pull ÉtÉ"].contains(&name),
            "{}: {name}",
            t.backend()
        );
        assert_eq!(rest, "3760000000017\nsku-v1", "{}", t.backend());
    }
}
