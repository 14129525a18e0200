//! Keeping the prepared statement of an `UPDATE` or single-row `INSERT` for the next request.
//!
//! diesel's statement cache never keeps those two kinds: their SQL may vary with the values (an
//! `Option` field left out, a changeset's skipped columns), so in general one call site could
//! fill the cache with variants. Each is then parsed and planned again on every call: on
//! PostgreSQL one more Parse per statement (three per stock adjustment), on SQLite one more
//! compilation. The statements wrapped here have a fixed set of columns, and the cache is keyed
//! by their SQL text anyway (the wrapper has no static query id), so a variant of the SQL would
//! be a second entry, never a wrong statement.

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::result::QueryResult;

/// A statement whose SQL is the same at every call, so that diesel keeps it prepared.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeptPrepared<Q>(pub(crate) Q);

impl<Q> QueryId for KeptPrepared<Q> {
    type QueryId = ();

    // No type-level identity: the cache key is the SQL text.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query> Query for KeptPrepared<Q> {
    type SqlType = Q::SqlType;
}

impl<DB: Backend, Q: QueryFragment<DB>> QueryFragment<DB> for KeptPrepared<Q> {
    fn walk_ast<'b>(&'b self, pass: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(pass)
    }

    fn is_safe_to_cache_prepared(&self, _backend: &DB) -> QueryResult<bool> {
        Ok(true)
    }
}
