//! Which rows a read loads: a list page (its query: filters, keyset position, `limit + 1`) or
//! these ids, missing ones skipped. The products, orders and clients reads name their own
//! (`catalogue::Selection`, `orders::OrderSelection`, `clients::ClientSelection`).

/// A selection borrowed from the caller.
pub(crate) enum Selection<'a, Query, Id> {
    Page(&'a Query),
    Ids(&'a [Id]),
}

// By hand: derived, they would ask `Query` and `Id` to be `Clone` and `Copy` themselves.
impl<Query, Id> Clone for Selection<'_, Query, Id> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Query, Id> Copy for Selection<'_, Query, Id> {}

/// A selection that a task on another thread can own: SQLite's reads run on their
/// connection's thread.
pub(crate) enum OwnedSelection<Query, Id> {
    Page(Query),
    Ids(Vec<Id>),
}

impl<Query: Clone, Id: Clone> From<Selection<'_, Query, Id>> for OwnedSelection<Query, Id> {
    fn from(selection: Selection<'_, Query, Id>) -> Self {
        match selection {
            Selection::Page(page) => Self::Page(page.clone()),
            Selection::Ids(ids) => Self::Ids(ids.to_vec()),
        }
    }
}

impl<Query, Id> OwnedSelection<Query, Id> {
    pub(crate) fn borrowed(&self) -> Selection<'_, Query, Id> {
        match self {
            Self::Page(page) => Selection::Page(page),
            Self::Ids(ids) => Selection::Ids(ids),
        }
    }
}
