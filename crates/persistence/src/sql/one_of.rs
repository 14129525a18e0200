//! `column IN (ids)` with the ids bound as ONE value, so that a statement's text does not
//! depend on how many ids it is given and stays in each connection's statement cache.
//!
//! diesel writes `eq_any` on SQLite as `IN (?, ?, ...)`, one placeholder per id, and marks the
//! statement as not cacheable (a list of another length is another statement): the variants of
//! a products page, the items of an orders page and the candidates of a search were compiled
//! again on every request, at a cost measured in docs/performance-log.md ("Full runs", "Changes of
//! 22 November"); the bound `LIMIT ?` caused the rest of the compilations, see
//! `.cargo/config.toml`. [`one_of`] binds SQLite one JSON array, unpacked by `json_each`, and
//! PostgreSQL one text array, as diesel's own `eq_any` already does there (`= ANY($1)`).
//!
//! One id is written `column = $1` instead, a second statement text beside the list's: a
//! product or an order read by its id. PostgreSQL's generic plan of `= ANY($1)` assumes ten
//! ids and looks costlier than the custom plan for one, so the planner kept planning that read
//! again at every request (see `first_rows.rs` for the rule, docs/PERFORMANCE.md for the
//! figures); an equality's generic plan is the custom one.

use std::fmt;

use diesel::backend::Backend;
use diesel::expression::{AppearsOnTable, Expression, SelectableExpression, ValidGrouping};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::result::QueryResult;
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::{Array, Bool, HasSqlType, Text};
use diesel::sqlite::Sqlite;

/// `column IN (ids)`, for a text column; see the module's doc. In parentheses, as diesel writes
/// `eq_any`. The ids may be the domain's typed ids: they are bound as the text they hold.
pub(crate) fn one_of<'a, C, T>(column: C, ids: &'a [T]) -> OneOf<'a, C>
where
    C: Expression<SqlType = Text>,
    T: AsRef<str>,
{
    OneOf {
        column,
        ids: TextIds(ids.iter().map(AsRef::as_ref).collect()),
    }
}

#[derive(Debug, Clone)]
pub(crate) struct OneOf<'a, C> {
    column: C,
    ids: TextIds<'a>,
}

/// The ids as text: SQLite binds them as one JSON array of strings, PostgreSQL as a text array.
#[derive(Clone)]
struct TextIds<'a>(Vec<&'a str>);

impl fmt::Debug for TextIds<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TextIds({} ids)", self.0.len())
    }
}

impl ToSql<Text, Sqlite> for TextIds<'_> {
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Sqlite>) -> serialize::Result {
        out.set_value(serde_json::to_string(&self.0)?);
        Ok(IsNull::No)
    }
}

impl<C> Expression for OneOf<'_, C>
where
    C: Expression<SqlType = Text>,
{
    type SqlType = Bool;
}

impl<C, QS> AppearsOnTable<QS> for OneOf<'_, C> where C: AppearsOnTable<QS, SqlType = Text> {}

impl<C, QS> SelectableExpression<QS> for OneOf<'_, C> where
    C: SelectableExpression<QS, SqlType = Text>
{
}

impl<C, GroupBy> ValidGrouping<GroupBy> for OneOf<'_, C>
where
    C: ValidGrouping<GroupBy>,
{
    type IsAggregate = C::IsAggregate;
}

impl<C> QueryId for OneOf<'_, C> {
    type QueryId = ();

    // No type-level identity: the cache key is the SQL text, which is fixed.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<DB, C> QueryFragment<DB> for OneOf<'_, C>
where
    DB: Backend + HasSqlType<Text>,
    C: QueryFragment<DB>,
    str: ToSql<Text, DB>,
    for<'a> TextIds<'a>: IdList<DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("(");
        self.column.walk_ast(out.reborrow())?;
        if let [id] = self.ids.0[..] {
            out.push_sql(" = ");
            out.push_bind_param::<Text, str>(id)?;
        } else {
            self.ids.walk_list(out.reborrow())?;
        }
        out.push_sql(")");
        Ok(())
    }
}

/// How a backend writes the list of two ids or more, after the column.
trait IdList<DB: Backend> {
    fn walk_list<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
}

impl IdList<Sqlite> for TextIds<'_> {
    fn walk_list<'b>(&'b self, mut out: AstPass<'_, 'b, Sqlite>) -> QueryResult<()> {
        out.push_sql(" IN (SELECT value FROM json_each(");
        out.push_bind_param::<Text, _>(self)?;
        out.push_sql("))");
        Ok(())
    }
}

impl IdList<Pg> for TextIds<'_> {
    fn walk_list<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(" = ANY(");
        out.push_bind_param::<Array<Text>, [&str]>(&self.0)?;
        out.push_sql(")");
        Ok(())
    }
}
