//! How the product list reaches the products a search (`q`) keeps, and the search index's
//! query on SQLite.
//!
//! The list always filters `q` with `search_text LIKE '%term%'`: that filter is the exact
//! answer. What differs is how the database reaches the rows to test. Two ways exist, and which
//! is cheaper depends on how many products hold the term:
//! - walking the (shop, id) index in list order and testing each product stops after `limit + 1`
//!   matches: cheap for a common term, a read of the whole catalogue for a rare one;
//! - reading the matches from a trigram index, then sorting them by id: cheap for a rare term,
//!   for a common one a read of the index's long match lists (whatever the `LIMIT`: FTS5 reads a
//!   phrase's trigram lists in full) and a sort of thousands of rows.
//!
//! On PostgreSQL the trigram GIN index serves the LIKE as written and the planner chooses from
//! its statistics (it estimates a `LIKE '%…%'` from the column's histogram): nothing to do here.
//!
//! SQLite's planner knows nothing of an FTS5 table's contents, so the choice is made here, for a
//! term of three or more characters (a shorter one has no trigram and always walks):
//! 1. a bounded walk: at most [`WALK_WINDOW_PER_ROW`] × (`limit` + 1) products past the cursor.
//!    A term that common fills its page there, at a cost that depends on how common the term is,
//!    not on the catalogue's size. If fewer products than that remain, the walk is the whole
//!    answer;
//! 2. if the window did not fill the page, the term is rare near the cursor: one query reads the
//!    ids of at most [`INDEX_PROBE_PER_ROW`] × (`limit` + 1) of the shop's products that the FTS5
//!    index (`products_search`, see the migration `2026-11-21-120000_search_indexes`) matches.
//!    If that is all of them, the page query keeps only those ids (and sorts only them); if
//!    there are more, the term is common further on, and the page query walks without bound.
//!
//! Like PostgreSQL's estimate, this assumes matches spread along the id order: a term held only
//! by products far past the window but by more than the probe's bound makes the last walk long.

use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use shop_domain::id::ShopId;
use shop_domain::text::SearchTerm;

use crate::database::SqliteConn;
use crate::error::DbError;
use crate::schema::products;

/// How far the first, bounded walk goes, per row asked for: a term held by at least one product in
/// this many fills its page within the window.
pub(crate) const WALK_WINDOW_PER_ROW: usize = 50;

/// Above this many index matches per row asked for, a walk along the id index is the cheaper way
/// to a page: with matches spread evenly it reads fewer than catalogue size / this many products.
pub(crate) const INDEX_PROBE_PER_ROW: usize = 50;

/// A trigram is three characters: a shorter term matches nothing in the index.
const MIN_INDEXED_CHARS: usize = 3;

/// The FTS5 table and each product's document number in it (SQLite only).
mod fts {
    diesel::table! {
        /// One row per product; `doc` is the FTS row's rowid.
        product_search_docs (doc) {
            doc -> BigInt,
            product_id -> Text,
            shop_id -> Text,
        }
    }

    diesel::table! {
        /// The FTS5 trigram table; its rowid is `product_search_docs.doc`.
        products_search (rowid) {
            rowid -> BigInt,
            search_text -> Text,
        }
    }

    diesel::allow_tables_to_appear_in_same_query!(product_search_docs, products_search);

    // `column MATCH 'query'`: FTS5's full-text condition, restricted to that column.
    diesel::infix_operator!(Matches, " MATCH ");
}

/// How the page query reaches the products its LIKE tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SearchPath {
    /// Along the id index from the cursor until the page is full.
    Walk,
    /// Along the id index from the cursor, but no further than this product id. A page that is
    /// not full by then says nothing yet of the products past it: the caller asks
    /// [`ProductSearchIndex::past_window`] for the way on and reads the page again.
    WalkThrough(String),
    /// Only these of the shop's products: a superset of those whose search text holds the term
    /// (the LIKE still decides). Empty: nothing matches.
    Candidates(Vec<String>),
}

/// How the page query should narrow a search.
pub(crate) trait ProductSearchIndex {
    /// The first way to read a page of products holding `term`, after `after` (the cursor).
    fn first_path(
        &mut self,
        shop: &ShopId,
        term: &SearchTerm,
        after: Option<&str>,
        limit: usize,
    ) -> impl Future<Output = Result<SearchPath, DbError>> + Send;

    /// The way on when a [`SearchPath::WalkThrough`] did not fill the page.
    fn past_window(
        &mut self,
        shop: &ShopId,
        term: &SearchTerm,
        limit: usize,
    ) -> impl Future<Output = Result<SearchPath, DbError>> + Send;
}

impl ProductSearchIndex for AsyncPgConnection {
    async fn first_path(
        &mut self,
        _shop: &ShopId,
        _term: &SearchTerm,
        _after: Option<&str>,
        _limit: usize,
    ) -> Result<SearchPath, DbError> {
        // The planner picks the trigram index for the LIKE when it pays.
        Ok(SearchPath::Walk)
    }

    async fn past_window(
        &mut self,
        _shop: &ShopId,
        _term: &SearchTerm,
        _limit: usize,
    ) -> Result<SearchPath, DbError> {
        // Not reached: `first_path` never bounds a walk here. A walk is the right answer anyway.
        Ok(SearchPath::Walk)
    }
}

impl ProductSearchIndex for SqliteConn {
    async fn first_path(
        &mut self,
        shop: &ShopId,
        term: &SearchTerm,
        after: Option<&str>,
        limit: usize,
    ) -> Result<SearchPath, DbError> {
        if term.as_str().chars().count() < MIN_INDEXED_CHARS {
            return Ok(SearchPath::Walk);
        }
        // The window's last product: the one `window - 1` places past the first after the cursor.
        let window = WALK_WINDOW_PER_ROW.saturating_mul(limit.saturating_add(1));
        let offset = i64::try_from(window.saturating_sub(1)).unwrap_or(i64::MAX);
        let mut last = products::table
            .filter(products::shop_id.eq(shop.as_str()))
            .select(products::id)
            .order(products::id.asc())
            .limit(1)
            .offset(offset)
            .into_boxed();
        if let Some(after) = after {
            last = last.filter(products::id.gt(after));
        }
        let last: Option<String> = last.get_result(self).await.optional()?;
        // Fewer products than the window remain: walking them all is the bounded walk.
        Ok(last.map_or(SearchPath::Walk, SearchPath::WalkThrough))
    }

    async fn past_window(
        &mut self,
        shop: &ShopId,
        term: &SearchTerm,
        limit: usize,
    ) -> Result<SearchPath, DbError> {
        let most = INDEX_PROBE_PER_ROW.saturating_mul(limit.saturating_add(1));
        let sql_limit = i64::try_from(most.saturating_add(1)).unwrap_or(i64::MAX);
        let ids: Vec<String> = fts::product_search_docs::table
            .inner_join(
                fts::products_search::table
                    .on(fts::products_search::rowid.eq(fts::product_search_docs::doc)),
            )
            .filter(fts::product_search_docs::shop_id.eq(shop.as_str()))
            .filter(fts::Matches::new(
                fts::products_search::search_text,
                phrase(term).into_sql::<Text>(),
            ))
            .select(fts::product_search_docs::product_id)
            .limit(sql_limit)
            .load(self)
            .await?;
        Ok(if ids.len() <= most {
            SearchPath::Candidates(ids)
        } else {
            SearchPath::Walk
        })
    }
}

/// The term as one FTS5 string (double quotes doubled): a phrase whose trigrams must follow
/// each other, that is the term as a substring, whatever characters it holds (FTS5 operators,
/// LIKE wildcards and quotes are all literal inside it).
fn phrase(term: &SearchTerm) -> String {
    format!("\"{}\"", term.as_str().replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::phrase;
    use shop_domain::text::SearchTerm;

    #[test]
    fn a_term_is_one_quoted_phrase() {
        let term = |raw: &str| SearchTerm::parse(raw).unwrap().unwrap();
        assert_eq!(phrase(&term("Laine")), "\"laine\"");
        assert_eq!(phrase(&term("12\" pouces")), "\"12\"\" pouces\"");
        assert_eq!(phrase(&term("a OR b*")), "\"a or b*\"");
    }
}
