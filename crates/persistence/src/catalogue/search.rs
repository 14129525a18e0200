//! Whether the product list narrows a search with the search index first, and the index's
//! query on SQLite.
//!
//! The list always filters `q` with `search_text LIKE '%term%'`: that filter is the exact
//! answer. What differs is how the database reaches the rows to test. Two ways exist, and which
//! is cheaper depends on how many products hold the term:
//! - walking the (shop, id) index in list order and testing each product stops after `limit + 1`
//!   matches: cheap for a common term, a read of the whole catalogue for a rare one;
//! - reading the matches from a trigram index, then sorting them by id: cheap for a rare term,
//!   a read and sort of thousands of rows for a common one.
//!
//! On PostgreSQL the trigram GIN index serves the LIKE as written and the planner chooses from
//! its statistics (it estimates a `LIKE '%…%'` from the column's histogram): nothing to do here.
//!
//! SQLite's planner knows nothing of an FTS5 table's contents, so the choice is made here: for
//! a term of three or more characters (a shorter one has no trigram), one query reads the ids
//! of at most [`INDEX_PROBE_PER_ROW`] × (`limit` + 1) of the shop's products that the FTS5 index
//! (`products_search`, see the migration `2026-11-21-120000_search_indexes`) matches. If that
//! is all of them, the page query keeps only those ids (and sorts only them); if there are more,
//! the term is common enough for the walk to fill a page soon, and the page query walks. Like
//! PostgreSQL's estimate, this assumes matches spread along the id order: a common term held
//! only by products at the end of the list makes the walk long.

use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use shop_domain::id::ShopId;
use shop_domain::text::SearchTerm;

use crate::database::SqliteConn;
use crate::error::DbError;

/// Above this many matches per row asked for, a walk along the id index is the cheaper way to
/// a page: with matches spread evenly it reads fewer than catalogue size / this many products.
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

/// How the page query should narrow a search.
pub(crate) trait ProductSearchIndex {
    /// `Some(ids)`: the page query keeps only these of the shop's products (a superset of those
    /// whose search text holds `term`, so its LIKE still decides). `None`: the page query walks
    /// the list with its LIKE alone.
    fn search_candidates(
        &mut self,
        shop: &ShopId,
        term: &SearchTerm,
        limit: usize,
    ) -> impl Future<Output = Result<Option<Vec<String>>, DbError>> + Send;
}

impl ProductSearchIndex for AsyncPgConnection {
    async fn search_candidates(
        &mut self,
        _shop: &ShopId,
        _term: &SearchTerm,
        _limit: usize,
    ) -> Result<Option<Vec<String>>, DbError> {
        // The planner picks the trigram index for the LIKE when it pays.
        Ok(None)
    }
}

impl ProductSearchIndex for SqliteConn {
    async fn search_candidates(
        &mut self,
        shop: &ShopId,
        term: &SearchTerm,
        limit: usize,
    ) -> Result<Option<Vec<String>>, DbError> {
        if term.as_str().chars().count() < MIN_INDEXED_CHARS {
            return Ok(None);
        }
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
        Ok((ids.len() <= most).then_some(ids))
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
