//! `column IN (ids)` with the ids bound as ONE value, so that a statement's text does not
//! depend on how many ids it is given and stays in each connection's statement cache.
//!
//! diesel writes `eq_any` on SQLite as `IN (?, ?, ...)`, one placeholder per id, and marks the
//! statement as not cacheable (a list of another length is another statement): the variants of
//! a products page, the items of an orders page and the candidates of a search were compiled
//! again on every request, at a cost measured in docs/PERFORMANCE.md ("Results", "Changes of
//! 22 November"); the bound `LIMIT ?` caused the rest of the compilations, see
//! `.cargo/config.toml`. [`one_of`] binds SQLite one JSON array, unpacked by `json_each`, and
//! PostgreSQL one text array, as diesel's own `eq_any` already does there (`= ANY($1)`).

use std::fmt;

use diesel::expression::{AppearsOnTable, Expression, SelectableExpression, ValidGrouping};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::result::QueryResult;
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::{Array, Bool, Text};
use diesel::sqlite::Sqlite;

/// `column IN (ids)`, for a text column; see the module's doc. In parentheses, as diesel writes
/// `eq_any`, so that PostgreSQL receives the very statement it did before.
pub(crate) fn one_of<C, T>(column: C, ids: &[T]) -> OneOf<'_, C, T>
where
    C: Expression<SqlType = Text>,
    T: AsRef<str>,
{
    OneOf {
        column,
        ids: JsonIds(ids),
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct OneOf<'a, C, T> {
    column: C,
    ids: JsonIds<'a, T>,
}

/// The ids as SQLite binds them: one JSON array of strings.
#[derive(Clone, Copy)]
struct JsonIds<'a, T>(&'a [T]);

impl<T> fmt::Debug for JsonIds<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JsonIds({} ids)", self.0.len())
    }
}

impl<T: AsRef<str>> ToSql<Text, Sqlite> for JsonIds<'_, T> {
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Sqlite>) -> serialize::Result {
        let ids: Vec<&str> = self.0.iter().map(AsRef::as_ref).collect();
        out.set_value(serde_json::to_string(&ids)?);
        Ok(IsNull::No)
    }
}

impl<C, T> Expression for OneOf<'_, C, T>
where
    C: Expression<SqlType = Text>,
{
    type SqlType = Bool;
}

impl<C, T, QS> AppearsOnTable<QS> for OneOf<'_, C, T> where C: AppearsOnTable<QS, SqlType = Text> {}

impl<C, T, QS> SelectableExpression<QS> for OneOf<'_, C, T> where
    C: SelectableExpression<QS, SqlType = Text>
{
}

impl<C, T, GroupBy> ValidGrouping<GroupBy> for OneOf<'_, C, T>
where
    C: ValidGrouping<GroupBy>,
{
    type IsAggregate = C::IsAggregate;
}

impl<C, T> QueryId for OneOf<'_, C, T> {
    type QueryId = ();

    // No type-level identity: the cache key is the SQL text, which is fixed.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<C, T> QueryFragment<Sqlite> for OneOf<'_, C, T>
where
    C: QueryFragment<Sqlite>,
    T: AsRef<str>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Sqlite>) -> QueryResult<()> {
        out.push_sql("(");
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(" IN (SELECT value FROM json_each(");
        out.push_bind_param::<Text, _>(&self.ids)?;
        out.push_sql(")))");
        Ok(())
    }
}

impl<C, T> QueryFragment<Pg> for OneOf<'_, C, T>
where
    C: QueryFragment<Pg>,
    T: ToSql<Text, Pg> + fmt::Debug,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("(");
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(" = ANY(");
        out.push_bind_param::<Array<Text>, [T]>(self.ids.0)?;
        out.push_sql("))");
        Ok(())
    }
}
