//! On SQLite, rows of a parent LEFT JOINed with its children (a product and its variants, an
//! order and its items): one row per child, or one without a child for a parent that has none,
//! each parent's rows together. They are folded into one value per parent as they are read.
//!
//! Every row repeats its parent's columns. [`by_parent_on_sqlite`] reads SQLite's rows itself
//! and decodes a parent's columns on its first row only, comparing the later rows' first column
//! (the parent's id) in place: a products page is 64 rows for 20 products, and their repeated
//! columns were a large share of the page's CPU (docs/performance-log.md, "One parent decoded
//! once").
//! PostgreSQL reads its pages in another form (`parents_then_children.rs`).

use std::ops::Range;

use diesel::connection::LoadConnection;
use diesel::deserialize::{FromSqlRow, StaticallySizedRow};
use diesel::expression::QueryMetadata;
use diesel::query_builder::{Query, QueryFragment, QueryId};
use diesel::row::{Field, Row};
use diesel::sqlite::{Sqlite, SqliteConnection};
use diesel::{QueryResult, result::Error};

use crate::error::DbError;

/// One value per parent of the rows of `query`, in the rows' order, read from SQLite here.
/// `query` selects `(parent, child)`, the parent's first column being its id, which `id` gives
/// of a decoded parent; `child` converts a child as its row is read; `finish` builds a parent's
/// value from its first row and its converted children.
pub(crate) fn by_parent_on_sqlite<Q, PST, CST, P, C, D, T>(
    conn: &mut SqliteConnection,
    query: Q,
    id: impl Fn(&P) -> &str,
    child: impl Fn(C) -> Result<D, DbError>,
    finish: impl Fn(P, Vec<D>) -> Result<T, DbError>,
) -> Result<Vec<T>, DbError>
where
    Q: Query<SqlType = (PST, CST)> + QueryFragment<Sqlite> + QueryId,
    Sqlite: QueryMetadata<(PST, CST)>,
    P: StaticallySizedRow<PST, Sqlite>,
    Option<C>: FromSqlRow<CST, Sqlite>,
{
    let parent_columns = 0..P::FIELD_COUNT;
    let mut values = Vec::new();
    let mut current: Option<(P, Vec<D>)> = None;
    for row in LoadConnection::load(conn, query)? {
        let row = row?;
        let known = current
            .as_ref()
            .is_some_and(|(last, _)| first_column_is(&row, id(last)));
        if !known {
            let parent = decode::<P, PST>(&row, parent_columns.clone())?;
            if let Some((done, children)) = current.replace((parent, Vec::new())) {
                values.push(finish(done, children)?);
            }
        }
        let child_row = decode::<Option<C>, CST>(&row, P::FIELD_COUNT..row.field_count())?;
        if let (Some(row), Some((_, children))) = (child_row, current.as_mut()) {
            children.push(child(row)?);
        }
    }
    if let Some((done, children)) = current {
        values.push(finish(done, children)?);
    }
    Ok(values)
}

/// Whether a row's first column is the text `id`, compared where SQLite holds it.
fn first_column_is<'r>(row: &impl Row<'r, Sqlite>, id: &str) -> bool {
    let Some(field) = row.get(0) else {
        return false;
    };
    // `read_text` borrows the value mutably: SQLite may convert it to text in place.
    field
        .value()
        .is_some_and(|mut value| value.read_text() == id)
}

fn decode<'r, V: FromSqlRow<ST, Sqlite>, ST>(
    row: &impl Row<'r, Sqlite>,
    columns: Range<usize>,
) -> QueryResult<V> {
    V::build_from_row(&row.partial_row(columns)).map_err(Error::DeserializationError)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parent's id and name, and its children.
    type Folded = ((String, String), Vec<i32>);

    /// The folded rows that selecting `columns` reads.
    fn on_sqlite(columns: &str) -> Result<Vec<Folded>, DbError> {
        use diesel::Connection;
        use diesel::dsl::sql;
        use diesel::sql_types::{Integer, Nullable, Text};

        let mut conn = SqliteConnection::establish(":memory:").unwrap();
        let rows = diesel::select(sql::<((Text, Text), Nullable<Integer>)>(columns));
        by_parent_on_sqlite(
            &mut conn,
            rows,
            |(id, _): &(String, String)| id,
            Ok,
            |p, c| Ok((p, c)),
        )
    }

    #[test]
    fn on_sqlite_a_parent_is_read_from_its_first_row() {
        let folded = on_sqlite(
            "column1, column2, column3 FROM (VALUES ('a', 'A', 1), ('b', 'B', 2), ('b', 'B?', 3), \
             ('c', 'C', NULL), ('d', 'D', 4))",
        );
        let expected = vec![
            (("a".to_owned(), "A".to_owned()), vec![1]),
            (("b".to_owned(), "B".to_owned()), vec![2, 3]),
            (("c".to_owned(), "C".to_owned()), vec![]),
            (("d".to_owned(), "D".to_owned()), vec![4]),
        ];
        assert_eq!(folded.unwrap(), expected);
    }

    #[test]
    fn on_sqlite_a_value_that_does_not_decode_fails_the_read() {
        let folded = on_sqlite("'a', NULL, 1");
        assert!(folded.is_err());
        assert!(on_sqlite("'a', 'A', 1 WHERE 0").unwrap().is_empty());
    }
}
