//! A page's size written into its statement: `LIMIT 21`, not `LIMIT $3`.
//!
//! PostgreSQL plans a prepared statement for its bound values (a *custom* plan) on its first
//! five executions, then keeps one *generic* plan if that plan's estimated cost is no worse. A
//! generic plan cannot see a bound `LIMIT`, assumes it keeps a tenth of the rows, and so always
//! looks costlier than the custom plans of a 21-row page: every list page was planned again at
//! every request, which cost PostgreSQL more than running it (docs/performance-log.md,
//! "PostgreSQL's share of a read"). With the number in the text the generic plan knows the
//! page's size, is the same plan, and is kept.
//!
//! The text then depends on the number, and each text is an entry of a connection's statement
//! cache (keyed by the SQL text: these fragments have no static query id), which diesel never
//! empties. So that a client cycling through page sizes cannot fill it, the number written is
//! the count rounded up to the next of 1, 11, 21, 31, …: at most nine rows more than asked
//! for, which the caller drops ([`FirstRows::written`]). SQLite plans without looking at bound
//! values (`.cargo/config.toml`) and runs the same text.

use diesel::backend::Backend;
use diesel::expression::{AppearsOnTable, Expression, SelectableExpression, ValidGrouping};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::result::QueryResult;
use diesel::sql_types::{Bool, SingleValue, SqlType};
use diesel::sqlite::Sqlite;

/// At least the first `count` rows of `query` (which orders them), and at most nine more: the
/// caller keeps the first `count`. See [`FirstRows::skipping`] to start further on.
pub(crate) fn first_rows<Q>(query: Q, count: usize) -> FirstRows<Q> {
    FirstRows {
        query,
        count,
        skip: 0,
    }
}

/// `query LIMIT count [OFFSET skip]`, the numbers written into the SQL; see the module's doc.
#[derive(Debug, Clone)]
pub(crate) struct FirstRows<Q> {
    query: Q,
    count: usize,
    skip: usize,
}

impl<Q> FirstRows<Q> {
    /// The same rows, past the first `skip` (written as given: only the search probe skips).
    pub(crate) fn skipping(self, skip: usize) -> Self {
        Self { skip, ..self }
    }

    /// The `LIMIT` written: `count` rounded up to the next of 1, 11, 21, 31, …
    pub(crate) fn written(count: usize) -> usize {
        count.saturating_sub(1).div_ceil(10) * 10 + 1
    }
}

impl<Q> QueryId for FirstRows<Q> {
    type QueryId = ();

    // No type-level identity: the cache key is the SQL text, which holds the numbers.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query> Query for FirstRows<Q> {
    type SqlType = Q::SqlType;
}

impl<DB: Backend, Q: QueryFragment<DB>> QueryFragment<DB> for FirstRows<Q> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.query.walk_ast(out.reborrow())?;
        out.push_sql(" LIMIT ");
        out.push_sql(&Self::written(self.count).to_string());
        if self.skip > 0 {
            out.push_sql(" OFFSET ");
            out.push_sql(&self.skip.to_string());
        }
        Ok(())
    }
}

/// `column IN (rows)`, for a page chosen by a subquery of one column: what diesel's `eq_any`
/// writes for a select statement, which `FirstRows` is not (on PostgreSQL, see the `Pg` impl).
pub(crate) fn in_first_rows<C, Q>(column: C, rows: FirstRows<Q>) -> InFirstRows<C, Q> {
    InFirstRows { column, rows }
}

#[derive(Debug, Clone)]
pub(crate) struct InFirstRows<C, Q> {
    column: C,
    rows: FirstRows<Q>,
}

impl<C, Q, ST> Expression for InFirstRows<C, Q>
where
    C: Expression<SqlType = ST>,
    Q: Query<SqlType = ST>,
    ST: SqlType + SingleValue,
{
    type SqlType = Bool;
}

impl<C, Q, QS> AppearsOnTable<QS> for InFirstRows<C, Q>
where
    C: AppearsOnTable<QS>,
    Self: Expression,
{
}

impl<C, Q, QS> SelectableExpression<QS> for InFirstRows<C, Q>
where
    C: SelectableExpression<QS>,
    Self: AppearsOnTable<QS>,
{
}

impl<C, Q, GroupBy> ValidGrouping<GroupBy> for InFirstRows<C, Q>
where
    C: ValidGrouping<GroupBy>,
{
    type IsAggregate = C::IsAggregate;
}

impl<C, Q> QueryId for InFirstRows<C, Q> {
    type QueryId = ();

    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<C, Q> InFirstRows<C, Q> {
    /// `(column <open> rows <close>)`.
    fn walk<'b, DB: Backend>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        open: &'static str,
        close: &'static str,
    ) -> QueryResult<()>
    where
        C: QueryFragment<DB>,
        Q: QueryFragment<DB>,
    {
        out.push_sql("(");
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(open);
        self.rows.walk_ast(out.reborrow())?;
        out.push_sql(close);
        out.push_sql(")");
        Ok(())
    }
}

impl<C: QueryFragment<Sqlite>, Q: QueryFragment<Sqlite>> QueryFragment<Sqlite>
    for InFirstRows<C, Q>
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Sqlite>) -> QueryResult<()> {
        self.walk(out, " IN (", ")")
    }
}

/// `column = ANY(ARRAY(rows))` on PostgreSQL: the rows are read once, before the scan, and the
/// scan looks their values up in an index in one pass. `IN (rows)` joined them, hashed them,
/// and looked each one up on its own (docs/performance-log.md, "Parents, then their children").
impl<C: QueryFragment<Pg>, Q: QueryFragment<Pg>> QueryFragment<Pg> for InFirstRows<C, Q> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.walk(out, " = ANY(ARRAY(", "))")
    }
}

#[cfg(test)]
mod tests {
    use super::FirstRows;

    #[test]
    fn the_written_limit_is_the_next_of_1_11_21_and_so_on() {
        let written: Vec<usize> = [0, 1, 2, 11, 12, 21, 22, 51, 101]
            .into_iter()
            .map(FirstRows::<()>::written)
            .collect();
        assert_eq!(written, [1, 1, 11, 11, 21, 21, 31, 51, 101]);
    }
}
