//! `q` on the product list: the same answer as a plain substring test of the search text,
//! whether the list reads the search index's matches or walks the list (SQLite chooses per
//! term, PostgreSQL's planner per query), and an index that follows every write to products.

use diesel::prelude::*;
use diesel::sql_types::BigInt;
use diesel_async::{AsyncConnection, RunQueryDsl};
use shop_domain::catalogue::{Product, ProductListQuery};
use shop_domain::id::ProductId;
use shop_domain::pagination::PageLimit;
use shop_domain::shop::Shop;
use shop_domain::text::SearchTerm;
use shop_ports::port::CatalogueRepository;

use super::super::fixtures::{imported, product, store_products, two_shops, variant};
use super::super::{TestDb, test_databases};
use super::search;
use crate::DatabaseUrl;
use crate::catalogue::search::{
    INDEX_PROBE_PER_ROW, ProductSearchIndex, SearchPath, WALK_WINDOW_PER_ROW,
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
        let rows = t.db.list_products(&shop.id, &page).await.unwrap();
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
    // Limit 1: SQLite's bounded walk reads 2 × WALK_WINDOW_PER_ROW products, its index probe
    // takes up to 2 × INDEX_PROBE_PER_ROW matches.
    let window = 2 * WALK_WINDOW_PER_ROW;
    let probe = 2 * INDEX_PROBE_PER_ROW;
    let size = 2 * window + probe + 50;
    let catalogue: Vec<Product> = (0..size)
        .map(|n| {
            let name = match n {
                // Rare, and none in the first window: the index's matches.
                _ if n == window + 50 || n == size - 2 => "Gilet",
                // None in the first window, more than the probe takes further on: a long walk.
                _ if n >= 2 * window => "Manteau",
                // Common from the start: the bounded walk fills the page.
                _ => "Pull",
            };
            named(&format!("p{n:03}"), &format!("{name} {n}"))
        })
        .collect();
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        store_products(&t.db, &a, catalogue.iter().cloned().map(imported).collect()).await;
        // Another shop's products neither match, nor count in a window or a probe: their ids
        // sort before this shop's, so a window that counted them would end elsewhere.
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
        if let DatabaseUrl::Sqlite(path) = &t.url {
            let mut conn = SqliteConn::establish(path.to_str().unwrap()).await.unwrap();
            let term = |raw: &str| SearchTerm::parse(raw).unwrap().unwrap();
            let window_end = format!("p{:03}", window - 1);
            let pulls = conn.first_path(&a.id, &term("pull"), None, 1).await;
            assert_eq!(pulls.unwrap(), SearchPath::WalkThrough(window_end));
            let near_end = format!("p{:03}", size - window + 1);
            let rest = conn
                .first_path(&a.id, &term("pull"), Some(&near_end), 1)
                .await;
            assert_eq!(
                rest.unwrap(),
                SearchPath::Walk,
                "the rest is shorter than a window"
            );
            let short = conn.first_path(&a.id, &term("pu"), None, 1).await;
            assert_eq!(
                short.unwrap(),
                SearchPath::Walk,
                "two characters have no trigram"
            );
            let gilets = conn.past_window(&a.id, &term("gilet"), 1).await;
            let SearchPath::Candidates(mut ids) = gilets.unwrap() else {
                panic!("a rare term reads the index's matches");
            };
            ids.sort_unstable();
            assert_eq!(ids, expected(&catalogue, "gilet"));
            let manteaux = conn.past_window(&a.id, &term("manteau"), 1).await;
            assert_eq!(
                manteaux.unwrap(),
                SearchPath::Walk,
                "too many matches to sort"
            );
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

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// On SQLite: the index holds one document per product, with the product's current text,
/// and nothing else.
async fn assert_index_in_step(t: &TestDb) {
    let DatabaseUrl::Sqlite(path) = &t.url else {
        return;
    };
    let mut conn = SqliteConn::establish(path.to_str().unwrap()).await.unwrap();
    let count = |sql: &'static str| diesel::sql_query(sql);
    let n = |rows: Vec<Count>| rows.into_iter().next().map(|c| c.n);
    let products = count("SELECT count(*) AS n FROM products")
        .load(&mut conn)
        .await;
    let in_step = count(
        "SELECT count(*) AS n FROM products p \
         JOIN product_search_docs d ON d.product_id = p.id AND d.shop_id = p.shop_id \
         JOIN products_search s ON s.rowid = d.doc AND s.search_text = p.search_text",
    )
    .load(&mut conn)
    .await;
    let docs = count("SELECT count(*) AS n FROM product_search_docs")
        .load(&mut conn)
        .await;
    let indexed = count("SELECT count(*) AS n FROM products_search")
        .load(&mut conn)
        .await;
    let products = n(products.unwrap());
    assert!(products.is_some_and(|n| n > 0));
    assert_eq!(
        n(in_step.unwrap()),
        products,
        "documents with the current text"
    );
    assert_eq!(n(docs.unwrap()), products, "one document per product");
    assert_eq!(n(indexed.unwrap()), products, "no stale row in the index");
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
async fn a_replaced_row_leaves_no_stale_document() {
    // SQLite's `INSERT OR REPLACE` deletes the old row without firing delete triggers.
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
    assert_index_in_step(&t).await;
}
