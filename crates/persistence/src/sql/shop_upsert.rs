//! Upserts that update only a row of the writer's shop: the import's and the API's writes of
//! products (`catalogue/write.rs`), and the import's other rows.

use crate::error::DbError;

/// `ON CONFLICT … DO UPDATE … WHERE predicate`. Spelled out because `FilterDsl`, which gives
/// upserts their `filter`, would make every other `.filter()` call ambiguous if imported.
pub(crate) fn only_in_shop<S, P>(upsert: S, predicate: P) -> diesel::dsl::Filter<S, P>
where
    S: diesel::query_dsl::methods::FilterDsl<P>,
{
    diesel::query_dsl::methods::FilterDsl::filter(upsert, predicate)
}

/// Every upsert updates only a row of the same shop (`ON CONFLICT (id) DO UPDATE … WHERE
/// shop_id = ?`). The import refuses foreign ids first and the API's writes make new ids; a
/// row claimed by another shop since then updates nothing, and that is reported instead of
/// being counted as written.
pub(crate) fn check_written(written: usize, table: &str, id: &str) -> Result<(), DbError> {
    if written == 1 {
        Ok(())
    } else {
        Err(DbError::Invariant(format!(
            "{table} id {id} was taken by another shop during the write"
        )))
    }
}
