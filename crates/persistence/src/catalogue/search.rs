//! How the product list reaches the products a search (`q`) keeps, the same way on both
//! databases.
//!
//! The list always filters `q` with `search_text LIKE '%term%'`: that filter is the exact
//! answer. What differs is how the database reaches the rows to test. Two ways exist, and which
//! is cheaper depends on how many products hold the term:
//! - walking the (shop, id) index in list order and testing each product stops after `limit + 1`
//!   matches: cheap for a common term, a read of the whole catalogue for a rare one;
//! - reading the term's entries in the suffix index (`product_search_suffixes`, see the
//!   migration `2026-11-25-030000_product_search_suffixes`): a term lies inside a line of a
//!   product's search text (its name or one of its codes) exactly when it begins one of that
//!   line's suffixes, so one range read finds the products holding it, reading their entries and
//!   no others, whatever the catalogue's size. Cheap for a rare term; for a common one, thousands
//!   of entries and a sort of their products.
//!
//! So for a term of three or more characters on one line, the database first looks for an entry
//! past the first [`INDEX_PROBE_PER_ROW`] × (`limit` + 1) of the term's: if there is one, the
//! term is common, and the page query walks, filling its page after about catalogue size /
//! matches products. If not, a second read takes the term's entries, and the page query keeps
//! only their products (and sorts only them).
//! A shorter term has no entries of its own (suffixes are three characters or more), and a term
//! holding a line feed spans lines, which the index keeps apart: both walk.
//!
//! Like a planner's estimate, this assumes matches spread along the id order: a term held by
//! more products than the probe reads, all of them far past the cursor, makes the walk long.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::id::ShopId;
use shop_domain::text::SearchTerm;

use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::schema::product_search_suffixes;
use crate::sql::first_rows::first_rows;

/// Above this many index entries per row asked for, a walk along the id index is the cheaper way
/// to a page: with matches spread evenly it reads fewer than catalogue size / this many products.
pub(crate) const INDEX_PROBE_PER_ROW: usize = 50;

/// The index keeps suffixes of three characters or more: a shorter term begins none of its own.
const MIN_INDEXED_CHARS: usize = 3;

/// The index keeps each suffix's first 16 characters (the migration's `16`): a longer term is
/// looked up by its own first 16, whose entries hold all of its matches.
pub(crate) const INDEXED_SUFFIX_CHARS: usize = 16;

/// How the page query reaches the products its LIKE tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SearchPath {
    /// Along the id index from the cursor until the page is full.
    Walk,
    /// Only these of the shop's products: a superset of those whose search text holds the term
    /// (the LIKE still decides). Empty: nothing matches.
    Candidates(Vec<String>),
}

/// How the page query should narrow a search.
pub(crate) trait ProductSearchIndex {
    /// The way to read a page of `limit` products holding `term`.
    fn search_path(
        &mut self,
        shop: &ShopId,
        term: &SearchTerm,
        limit: usize,
    ) -> impl Future<Output = Result<SearchPath, DbError>> + Send;
}

impl_for_each_backend! {
    impl ProductSearchIndex {
        async fn search_path(
            &mut self,
            shop: &ShopId,
            term: &SearchTerm,
            limit: usize,
        ) -> Result<SearchPath, DbError> {
            let Some((low, high)) = index_range(term) else {
                return Ok(SearchPath::Walk);
            };
            let most = INDEX_PROBE_PER_ROW.saturating_mul(limit.saturating_add(1));
            let entries = || {
                let mut entries = product_search_suffixes::table
                    .filter(product_search_suffixes::shop_id.eq(shop.as_str()))
                    .filter(product_search_suffixes::suffix.ge(low.as_str()))
                    .select(product_search_suffixes::product_id)
                    .into_boxed();
                if let Some(high) = &high {
                    entries = entries.filter(product_search_suffixes::suffix.lt(high.as_str()));
                }
                entries
            };
            // Whether the term has more entries than `most`, told by the one past them, so
            // that a common term's entries are counted by the database, never sent here.
            let past_most = first_rows(entries(), 1)
                .skipping(most)
                .get_result::<String>(self)
                .await
                .optional()?;
            if past_most.is_some() {
                return Ok(SearchPath::Walk);
            }
            let mut ids: Vec<String> = entries().load(self).await?;
            // A product has an entry per suffix the term begins: one candidate each.
            ids.sort_unstable();
            ids.dedup();
            Ok(SearchPath::Candidates(ids))
        }
    }
}

/// The suffix index's entries that a term begins: from its first [`INDEXED_SUFFIX_CHARS`]
/// characters up to (without) their successor, `None` for no bound. `None` altogether when the
/// term has no entries of its own: too short, or spanning lines.
fn index_range(term: &SearchTerm) -> Option<(String, Option<String>)> {
    let term = term.as_str();
    if term.chars().count() < MIN_INDEXED_CHARS || term.contains('\n') {
        return None;
    }
    let low: String = term.chars().take(INDEXED_SUFFIX_CHARS).collect();
    let high = successor(&low);
    Some((low, high))
}

/// The least string greater than every string that starts with `prefix`, in code point order
/// (PostgreSQL's "C" collation and SQLite's BINARY, over UTF-8): the prefix with its last
/// character replaced by the next one, after dropping trailing U+10FFFF, which has no next.
/// `None` when nothing is left: every string from `prefix` on starts with it.
fn successor(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        // The code point after `last`, skipping the surrogates, which no string holds.
        let next = match u32::from(last) + 1 {
            0xD800 => Some('\u{E000}'),
            code => char::from_u32(code),
        };
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use shop_domain::text::SearchTerm;

    use super::{index_range, successor};

    fn term(raw: &str) -> SearchTerm {
        SearchTerm::parse(raw).unwrap().unwrap()
    }

    #[test]
    fn a_term_reads_the_entries_it_begins() {
        let range = |raw: &str| index_range(&term(raw));
        assert_eq!(
            range("TRS-00"),
            Some(("trs-00".to_owned(), Some("trs-01".to_owned())))
        );
        assert_eq!(range("lainé"), Some(("lainé".into(), Some("lainê".into()))));
        // Cut like the stored suffixes.
        assert_eq!(
            range("3760000000017 and more"),
            Some(("3760000000017 an".into(), Some("3760000000017 ao".into())))
        );
        assert_eq!(range("ab"), None, "shorter than any entry");
        assert_eq!(range("ab\ncd"), None, "across two lines");
    }

    #[test]
    fn the_successor_steps_over_what_has_no_next() {
        assert_eq!(successor("ab\u{10FFFF}").as_deref(), Some("ac"));
        assert_eq!(successor("a\u{D7FF}").as_deref(), Some("a\u{E000}"));
        assert_eq!(successor("\u{10FFFF}\u{10FFFF}"), None);
    }

    proptest! {
        /// The range [prefix, successor) holds exactly the strings that start with the prefix.
        #[test]
        fn the_range_holds_exactly_the_strings_a_prefix_begins(
            prefix in "[a-c\u{D7FF}\u{E000}\u{10FFFF}]{1,3}",
            text in "[a-c\u{D7FF}\u{E000}\u{10FFFF}]{0,5}",
        ) {
            let in_range = text.as_str() >= prefix.as_str()
                && successor(&prefix).is_none_or(|high| text < high);
            prop_assert_eq!(in_range, text.starts_with(&prefix));
        }
    }
}
