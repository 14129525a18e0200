//! `q` on the product list: the same answer as a plain substring test of the search text,
//! whether the list reads the suffix index's matches or walks the list (chosen per term), and
//! an index that follows every write to products.

use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel_async::{AsyncConnection, RunQueryDsl};
use shop_domain::catalogue::{Product, ProductListQuery};
use shop_domain::id::ProductId;
use shop_domain::pagination::PageLimit;
use shop_domain::shop::Shop;
use shop_domain::text::SearchTerm;
use shop_ports::port::CatalogueRepository;
use shop_ports::port::ReadFrom;

use super::super::fixtures::{imported, product, store_products, two_shops, variant};
use super::super::{TestDb, test_databases};
use super::search;
use crate::DatabaseUrl;
use crate::catalogue::search::{
    INDEX_PROBE_PER_ROW, INDEXED_SUFFIX_CHARS, ProductSearchIndex, SearchPath,
};
use crate::database::{SqliteConn, with_conn};

fn named(id: &str, name: &str) -> Product {
    let mut p = product(id);
    p.name = name.into();
    p
}

/// The ids of `products` whose search text holds `term`, by id: the answer `q` has always given.
fn expected<'a>(products: &'a [Product], term: &str) -> Vec<&'a str> {
    let term = SearchTerm::parse(term).unwrap().unwrap();
    let mut found: Vec<&str> = products
        .iter()
        .filter(|p| term.matches(&p.search_text()))
        .map(|p| p.id.as_str())
        .collect();
    found.sort_unstable();
    found
}

/// Every product `q` finds, page by page with `limit`.
async fn search_all(t: &TestDb, shop: &Shop, term: &str, limit: usize) -> Vec<String> {
    let mut page = ProductListQuery {
        limit: PageLimit::new(i64::try_from(limit).unwrap()).unwrap(),
        ..search(term)
    };
    let mut seen = Vec::new();
    loop {
        let rows =
            t.db.list_products(&shop.id, &page, ReadFrom::Primary)
                .await
                .unwrap();
        let has_more = rows.len() > limit;
        seen.extend(rows.into_iter().take(limit).map(|p| p.id.into_string()));
        if !has_more {
            return seen;
        }
        page.after = seen.last().map(|id| ProductId::parse(id.as_str()).unwrap());
    }
}

#[tokio::test]
async fn search_finds_exactly_the_products_whose_text_holds_the_term() {
    let mut catalogue = vec![
        named("p01", "Pull Laine Rouge"),
        named("p02", "Écharpe en laine"),
        named("p03", "Écran 24\" mat"),
        named("p04", "50% off"),
        named("p05", "snake_case"),
        named("p06", "a OR b* NEAR(x) -y ^z"),
        named("p07", "Große Straße"),
        named("p08", "back\\slash"),
        named("p09", "Écharpe en laine mérinos extra-fine"),
    ];
    catalogue[1].variants = vec![variant("scarf-v", 0)];
    catalogue[1].variants[0].barcode = Some("9990001".into());
    let terms = [
        // Case-folded, beyond ASCII; one or two characters (no trigram) and more.
        "laine",
        "LAINE",
        "l",
        "la",
        "ÉCH",
        "ÉCHARPE",
        "straße",
        "GROSSE",
        "e",
        // Codes: EAN, product SKU, variant SKU and barcode, whole or partial.
        "3760000000017",
        "ref-p05",
        "sku-p0",
        "999000",
        "9990001",
        // Inside a code, not from its start; longer than the index's cut suffixes.
        "00000001",
        "laine mérinos extra",
        "laine mérinos extra-fine",
        "laine mérinos extra-finé",
        // Across the name and a code: the list walks, as ever.
        "laine\n999",
        // Quotes, LIKE wildcards and FTS5 syntax are literal.
        "24\"",
        "\"",
        "\" mat",
        "50%",
        "%",
        "e_c",
        "_",
        "k\\s",
        "or b*",
        "near(x)",
        "-y ^z",
        "*",
        // Nothing.
        "zzz",
        "laine rouge x",
    ];
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        store_products(&t.db, &a, catalogue.iter().cloned().map(imported).collect()).await;
        for term in terms {
            let found = search_all(&t, &a, term, 100).await;
            assert_eq!(
                found,
                expected(&catalogue, term),
                "{} {term:?}",
                t.backend()
            );
        }
    }
}

#[tokio::test]
async fn common_and_rare_terms_page_alike_whichever_way_the_list_is_read() {
    // Limit 1: a term with more than 2 × INDEX_PROBE_PER_ROW entries walks.
    let probe = 2 * INDEX_PROBE_PER_ROW;
    let size = 4 * probe;
    let catalogue: Vec<Product> = (0..size)
        .map(|n| {
            let name = match n {
                // Rare: the index's entries name them all.
                _ if n == 2 * probe + 10 || n == size - 2 => "Gilet",
                // More products than the probe allows, none early on: a long walk.
                _ if n >= 2 * probe => "Manteau",
                // Common from the start: the walk fills the page at once.
                _ => "Pull",
            };
            named(&format!("p{n:03}"), &format!("{name} {n}"))
        })
        .collect();
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        store_products(&t.db, &a, catalogue.iter().cloned().map(imported).collect()).await;
        // Another shop's products neither match nor count in a probe: if they did, "gilet"
        // would have more entries than the probe allows.
        let elsewhere = (0..probe).map(|n| imported(named(&format!("a-{n:03}"), "Gilet")));
        store_products(&t.db, &b, elsewhere.collect()).await;
        for term in ["pull", "gilet", "manteau", "let 3", "u"] {
            let found = search_all(&t, &a, term, 1).await;
            assert_eq!(
                found,
                expected(&catalogue, term),
                "{} {term:?}",
                t.backend()
            );
        }
        let gilets = expected(&catalogue, "gilet");
        let cases = [
            (
                "pull",
                SearchPath::Walk,
                "more entries than the probe allows",
            ),
            (
                "manteau",
                SearchPath::Walk,
                "more entries than the probe allows",
            ),
            ("pu", SearchPath::Walk, "two characters begin no entry"),
            (
                "gilet",
                SearchPath::Candidates(gilets.iter().map(|id| id.to_string()).collect()),
                "a rare term reads its entries",
            ),
        ];
        for (raw, want, why) in cases {
            let term = SearchTerm::parse(raw).unwrap().unwrap();
            let path = with_conn!(&t.db, |conn| conn.search_path(&a.id, &term, 1).await);
            assert_eq!(path.unwrap(), want, "{} {raw:?}: {why}", t.backend());
        }
    }
}

/// Writes `products` rows (one variant-less product each) with plain SQL, as a bulk loader or
/// an operator would, bypassing the import.
async fn insert_by_sql(t: &TestDb, shop: &Shop, rows: &[(&str, &str)]) {
    let values: Vec<String> = rows
        .iter()
        .map(|(id, name)| {
            format!(
                "('{id}', '{shop}', '{name}', 'simple', NULL, NULL, 100, 100, NULL, false, 2000, \
                 true, true, '[]', '[]', NULL, NULL, '{text}', 1, 1)",
                shop = shop.id.as_str(),
                text = name.to_lowercase(),
            )
        })
        .collect();
    let sql = format!(
        "INSERT INTO products (id, shop_id, name, product_type, ean, sku, price_cents, \
         list_price_cents, compare_at_price_cents, promo_active, tax_rate_hundredths, active, \
         track_stock, tags, photos, category_id, brand_id, search_text, created_at_ms, \
         updated_at_ms) VALUES {}",
        values.join(", ")
    );
    with_conn!(&t.db, |conn| diesel::sql_query(&sql).execute(conn).await).unwrap();
}

/// Every suffix of three characters or more of each line of `text`, cut to the index's length:
/// what the migration's triggers store, written here as plainly as it can be.
fn suffixes(text: &str) -> Vec<String> {
    let mut all: Vec<String> = text
        .split('\n')
        .flat_map(|line| {
            let chars: Vec<char> = line.chars().collect();
            (0..chars.len().saturating_sub(2))
                .map(move |start| chars[start..].iter().take(INDEXED_SUFFIX_CHARS).collect())
        })
        .collect();
    all.sort_unstable();
    all.dedup();
    all
}

#[derive(QueryableByName, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    #[diesel(sql_type = Text)]
    shop_id: String,
    #[diesel(sql_type = Text)]
    suffix: String,
    #[diesel(sql_type = Text)]
    product_id: String,
}

/// The index holds each product's suffixes, from its current text, and nothing else.
async fn assert_index_in_step(t: &TestDb) {
    let sql = |sql: &'static str| diesel::sql_query(sql);
    let mut stored: Vec<Entry> = with_conn!(&t.db, |conn| sql(
        "SELECT shop_id, suffix, product_id FROM product_search_suffixes"
    )
    .load(conn)
    .await)
    .unwrap();
    let products: Vec<Entry> = with_conn!(&t.db, |conn| sql(
        "SELECT shop_id, search_text AS suffix, id AS product_id FROM products"
    )
    .load(conn)
    .await)
    .unwrap();
    assert!(!products.is_empty());
    let mut expected: Vec<Entry> = products
        .into_iter()
        .flat_map(|product| {
            suffixes(&product.suffix)
                .into_iter()
                .map(move |suffix| Entry {
                    shop_id: product.shop_id.clone(),
                    suffix,
                    product_id: product.product_id.clone(),
                })
        })
        .collect();
    stored.sort_unstable();
    expected.sort_unstable();
    assert_eq!(stored, expected, "{}", t.backend());
}

#[tokio::test]
async fn the_index_follows_imports_sql_writes_and_deletes() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let backend = t.backend();
        let find = |term: &'static str| search_all(&t, &a, term, 100);
        store_products(&t.db, &a, vec![imported(named("p1", "Pull rouge"))]).await;
        assert_eq!(find("rouge").await, ["p1"], "{backend}");

        // Renamed by a new import: found by its new name only.
        store_products(&t.db, &a, vec![imported(named("p1", "Veste verte"))]).await;
        assert_eq!(find("verte").await, ["p1"], "{backend}");
        assert!(find("rouge").await.is_empty(), "{backend}");
        // Imported again unchanged: still found.
        store_products(&t.db, &a, vec![imported(named("p1", "Veste verte"))]).await;
        assert_eq!(find("verte").await, ["p1"], "{backend}");
        assert_index_in_step(&t).await;

        // Rows written by plain SQL, many per statement.
        insert_by_sql(
            &t,
            &a,
            &[("bulk-1", "Bonnet gris"), ("bulk-2", "Gants gris")],
        )
        .await;
        assert_eq!(find("gris").await, ["bulk-1", "bulk-2"], "{backend}");
        assert_index_in_step(&t).await;

        with_conn!(&t.db, |conn| diesel::sql_query(
            "UPDATE products SET search_text = 'bonnet noir' WHERE id = 'bulk-1'"
        )
        .execute(conn)
        .await)
        .unwrap();
        assert_eq!(find("noir").await, ["bulk-1"], "{backend}");
        assert_eq!(find("gris").await, ["bulk-2"], "{backend}");

        with_conn!(&t.db, |conn| diesel::sql_query(
            "DELETE FROM products WHERE id = 'bulk-2'"
        )
        .execute(conn)
        .await)
        .unwrap();
        assert!(find("gris").await.is_empty(), "{backend}");
        assert_index_in_step(&t).await;
    }
}

#[tokio::test]
async fn a_replaced_row_is_found_by_its_new_text_only() {
    // SQLite's `INSERT OR REPLACE` deletes the old row without firing delete triggers: the old
    // text's entries stay in the index, and the list's LIKE still answers from the row.
    let t = super::super::sqlite().await;
    let (a, _) = two_shops(&t.db).await;
    insert_by_sql(&t, &a, &[("r1", "Robe bleue")]).await;
    let DatabaseUrl::Sqlite(path) = &t.url else {
        unreachable!("a SQLite test database");
    };
    let mut conn = SqliteConn::establish(path.to_str().unwrap()).await.unwrap();
    diesel::sql_query(
        "INSERT OR REPLACE INTO products SELECT id, shop_id, 'Robe rose', product_type, ean, \
         sku, price_cents, list_price_cents, compare_at_price_cents, promo_active, \
         tax_rate_hundredths, active, track_stock, tags, photos, category_id, brand_id, \
         'robe rose', created_at_ms, updated_at_ms FROM products WHERE id = 'r1'",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    assert_eq!(search_all(&t, &a, "rose", 10).await, ["r1"]);
    assert!(search_all(&t, &a, "bleue", 10).await.is_empty());
}
