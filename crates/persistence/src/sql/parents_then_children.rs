//! On PostgreSQL, a read of parents with their children (products and their variants, orders
//! and their items) in one statement: the parents' rows, then their children's rows (`UNION
//! ALL`). A row holds a parent or a child, the other's columns NULL ([`Nulls`]).
//!
//! A join would repeat a parent's columns on each of its children's rows, and sort them all
//! again after joining: on PostgreSQL that cost more than the two statements it replaced. Here
//! each value is sent once, the parents' branch is the page's own walk in its order, and the
//! children's branch finds them by the page's ids (docs/performance-log.md, "Parents, then their
//! children"). SQLite keeps the join, which costs it less (`by_parent.rs`).
//!
//! Nothing is assumed of the order in which rows arrive but that of the parents among
//! themselves, which is their branch's `ORDER BY`: PostgreSQL returns a `UNION ALL`'s branches
//! one after the other (its `Append`). A child is attached to its parent by id and a parent's
//! children are put in order here.

use std::cmp::Ordering;
use std::marker::PhantomData;

use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::deserialize::StaticallySizedRow;
use diesel::expression::{
    AppearsOnTable, Expression, SelectableExpression, TypedExpressionType, ValidGrouping,
    is_aggregate,
};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{IntoNullable, SqlType};

use crate::error::DbError;

/// `parents UNION ALL children`, each branch a select of the same columns.
pub(crate) fn parents_then_children<P, C>(parents: P, children: C) -> ParentsThenChildren<P, C> {
    ParentsThenChildren { parents, children }
}

#[derive(Debug, Clone)]
pub(crate) struct ParentsThenChildren<P, C> {
    parents: P,
    children: C,
}

impl<P, C> QueryId for ParentsThenChildren<P, C> {
    type QueryId = ();

    // The branches hold page sizes written as numbers (first_rows.rs): the text is the key.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<P: Query, C: Query<SqlType = P::SqlType>> Query for ParentsThenChildren<P, C> {
    type SqlType = P::SqlType;
}

/// A branch with its own `ORDER BY` and `LIMIT` goes in parentheses.
impl<P: QueryFragment<Pg>, C: QueryFragment<Pg>> QueryFragment<Pg> for ParentsThenChildren<P, C> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("(");
        self.parents.walk_ast(out.reborrow())?;
        out.push_sql(") UNION ALL (");
        self.children.walk_ast(out.reborrow())?;
        out.push_sql(")");
        Ok(())
    }
}

/// `NULL, NULL, …`, as many as row type `R` selects columns, typed as `R`'s selection
/// `ST` made nullable: the other half of a branch's columns, read as `None`.
pub(crate) struct Nulls<R, ST>(PhantomData<fn() -> (R, ST)>);

/// [`Nulls`] in place of `R`'s columns, as `R` selects them on backend `DB`.
pub(crate) fn nulls<R, DB>() -> Nulls<R, SelectionType<R, DB>>
where
    R: diesel::Selectable<DB>,
    DB: Backend,
{
    Nulls(PhantomData)
}

type SelectionType<R, DB> =
    <<R as diesel::Selectable<DB>>::SelectExpression as Expression>::SqlType;

impl<R, ST> Expression for Nulls<R, ST>
where
    ST: SqlType + IntoNullable,
    <ST as IntoNullable>::Nullable: TypedExpressionType,
{
    type SqlType = <ST as IntoNullable>::Nullable;
}

impl<R, ST, DB> QueryFragment<DB> for Nulls<R, ST>
where
    DB: Backend,
    R: StaticallySizedRow<ST, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        for column in 0..R::FIELD_COUNT {
            out.push_sql(if column == 0 { "NULL" } else { ", NULL" });
        }
        Ok(())
    }
}

impl<R, ST> QueryId for Nulls<R, ST> {
    type QueryId = ();

    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<R, ST, QS> AppearsOnTable<QS> for Nulls<R, ST> where Self: Expression {}

impl<R, ST, QS> SelectableExpression<QS> for Nulls<R, ST> where Self: AppearsOnTable<QS> {}

impl<R, ST, GroupBy> ValidGrouping<GroupBy> for Nulls<R, ST> {
    type IsAggregate = is_aggregate::Never;
}

/// A child row: which parent it belongs to, and where it goes among that parent's children.
pub(crate) trait ChildRow {
    fn parent_id(&self) -> &str;

    /// The children's display order.
    fn order(&self, other: &Self) -> Ordering;
}

/// One value per parent of `rows`, in the parents' order. `id` gives a parent's id; `child`
/// converts a child once its parent's are in order; `finish` builds a parent's value from it
/// and its converted children.
pub(crate) fn assemble<P, C: ChildRow, D, T>(
    rows: Vec<(Option<P>, Option<C>)>,
    id: impl Fn(&P) -> &str,
    child: impl Fn(C) -> Result<D, DbError>,
    finish: impl Fn(P, Vec<D>) -> Result<T, DbError>,
) -> Result<Vec<T>, DbError> {
    let mut parents: Vec<(P, Vec<C>)> = Vec::new();
    let mut children = Vec::new();
    for row in rows {
        match row {
            (Some(parent), None) => parents.push((parent, Vec::new())),
            (None, Some(row)) => children.push(row),
            _ => {
                return Err(DbError::Invariant(
                    "a row of a parents-then-children read holds both or neither".to_owned(),
                ));
            }
        }
    }
    // A parent's children arrive together: look from where the last one went.
    let mut last = 0;
    for row in children {
        let Some(at) = (last..parents.len())
            .chain(0..last)
            .find(|&at| id(&parents[at].0) == row.parent_id())
        else {
            return Err(DbError::Invariant(format!(
                "a child row of {} is not among the parents read",
                row.parent_id()
            )));
        };
        last = at;
        parents[at].1.push(row);
    }
    parents
        .into_iter()
        .map(|(parent, mut children)| {
            children.sort_by(C::order);
            let children = children.into_iter().map(&child).collect::<Result<_, _>>()?;
            finish(parent, children)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A child of parent `.0` at position `.1`.
    #[derive(Debug, PartialEq)]
    struct Child(&'static str, i32);

    impl ChildRow for Child {
        fn parent_id(&self) -> &str {
            self.0
        }

        fn order(&self, other: &Self) -> Ordering {
            self.1.cmp(&other.1)
        }
    }

    type Row = (Option<&'static str>, Option<Child>);

    fn assembled(rows: Vec<Row>) -> Result<Vec<(&'static str, Vec<i32>)>, DbError> {
        assemble(
            rows,
            |parent: &&str| parent,
            |child: Child| Ok(child.1),
            |parent, children| Ok((parent, children)),
        )
    }

    fn parent(id: &'static str) -> Row {
        (Some(id), None)
    }

    fn child(parent: &'static str, position: i32) -> Row {
        (None, Some(Child(parent, position)))
    }

    #[test]
    fn each_parent_in_its_order_with_its_children_in_theirs() {
        let rows = vec![
            parent("b"),
            parent("a"),
            parent("c"),
            child("a", 1),
            child("a", 0),
            child("b", 0),
            child("a", 2),
        ];
        let expected = vec![("b", vec![0]), ("a", vec![0, 1, 2]), ("c", vec![])];
        assert_eq!(assembled(rows).unwrap(), expected);
        assert!(assembled(Vec::new()).unwrap().is_empty());
    }

    #[test]
    fn a_child_before_its_parent_still_finds_it() {
        let rows = vec![child("a", 1), parent("a"), child("a", 0)];
        assert_eq!(assembled(rows).unwrap(), vec![("a", vec![0, 1])]);
    }

    #[test]
    fn a_child_without_its_parent_or_a_row_of_neither_fails_the_read() {
        assert!(assembled(vec![parent("a"), child("b", 0)]).is_err());
        assert!(assembled(vec![parent("a"), (None, None)]).is_err());
    }
}
