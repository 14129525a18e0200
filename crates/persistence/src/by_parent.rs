//! Rows of a parent LEFT JOINed with its children (a product and its variants, an order and its
//! items): one row per child, or one without a child for a parent that has none, each parent's
//! rows together. They are folded into one value per parent as they are read; a parent's
//! columns on its later rows are dropped.

use diesel::QueryResult;

use crate::error::DbError;

/// One value per parent of `rows`, in the rows' order. `same` tells whether a row's parent is
/// the previous row's; `child` converts a child as its row is read; `finish` builds a parent's
/// value from its first row and its converted children.
pub(crate) fn by_parent<P, C, D, T>(
    rows: impl IntoIterator<Item = QueryResult<(P, Option<C>)>>,
    same: impl Fn(&P, &P) -> bool,
    child: impl Fn(C) -> Result<D, DbError>,
    finish: impl Fn(P, Vec<D>) -> Result<T, DbError>,
) -> Result<Vec<T>, DbError> {
    let mut values = Vec::new();
    let mut current: Option<(P, Vec<D>)> = None;
    for row in rows {
        let (parent, child_row) = row?;
        let another = current
            .as_ref()
            .is_none_or(|(last, _)| !same(last, &parent));
        if another && let Some((done, children)) = current.replace((parent, Vec::new())) {
            values.push(finish(done, children)?);
        }
        if let (Some(row), Some((_, children))) = (child_row, current.as_mut()) {
            children.push(child(row)?);
        }
    }
    if let Some((done, children)) = current {
        values.push(finish(done, children)?);
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(rows: &[(&str, Option<i32>)]) -> Result<Vec<(String, Vec<i32>)>, DbError> {
        let rows = rows.iter().map(|(p, c)| Ok((p.to_string(), *c)));
        by_parent(rows, |a, b| a == b, Ok, |p, c| Ok((p, c)))
    }

    #[test]
    fn each_parent_once_with_its_children_in_order() {
        let folded = joined(&[("a", Some(1)), ("a", Some(2)), ("b", None), ("c", Some(3))]);
        let expected = vec![
            ("a".to_owned(), vec![1, 2]),
            ("b".to_owned(), vec![]),
            ("c".to_owned(), vec![3]),
        ];
        assert_eq!(folded.unwrap(), expected);
        assert!(joined(&[]).unwrap().is_empty());
    }

    #[test]
    fn a_row_that_failed_fails_the_read() {
        let rows = vec![Ok(("a", Some(1))), Err(diesel::result::Error::NotFound)];
        let folded = by_parent(rows, |a, b| a == b, Ok, |p, c: Vec<i32>| Ok((p, c)));
        assert!(folded.is_err());
    }
}
