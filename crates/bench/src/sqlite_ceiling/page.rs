//! A page statement as a diesel query: its SQL text with each `?` given its bind, and the
//! types of its rows, so that diesel prepares it once per connection (cached by its text, as
//! the adapter's statements are) and decodes every value of every row into the Rust value the
//! adapter's rows hold.

use std::marker::PhantomData;

use diesel::QueryResult;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::RunQueryDsl;
use diesel::sql_types::{BigInt, Bool, Integer, Nullable, Text};
use diesel::sqlite::Sqlite;

use super::statement::{Bind, PageStatement};

/// The columns of a products page: the product's (in two tuples: diesel's tuples stop at 16),
/// its category's and brand's names, then its variant's (absent for a product without
/// variants: LEFT JOIN).
pub type ProductsPageColumns = (
    (
        Text,
        Text,
        Text,
        Text,
        Nullable<Text>,
        Nullable<Text>,
        BigInt,
        BigInt,
        Nullable<BigInt>,
        Bool,
    ),
    (
        BigInt,
        Bool,
        Bool,
        Text,
        Text,
        Nullable<Text>,
        Nullable<Text>,
        Text,
        BigInt,
        BigInt,
    ),
    (Nullable<Text>, Nullable<Text>),
    (
        Nullable<Text>,
        Nullable<Text>,
        Nullable<Text>,
        Nullable<Text>,
        Nullable<Text>,
        Nullable<Text>,
        Nullable<Text>,
        Nullable<BigInt>,
        Nullable<BigInt>,
        Nullable<BigInt>,
        Nullable<Bool>,
        Nullable<Bool>,
        Nullable<Bool>,
        Nullable<Integer>,
        Text,
    ),
);

pub type ProductsPageRow = (
    (
        String,
        String,
        String,
        String,
        Option<String>,
        Option<String>,
        i64,
        i64,
        Option<i64>,
        bool,
    ),
    (
        i64,
        bool,
        bool,
        String,
        String,
        Option<String>,
        Option<String>,
        String,
        i64,
        i64,
    ),
    (Option<String>, Option<String>),
    (
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<i64>,
        Option<i64>,
        Option<i64>,
        Option<bool>,
        Option<bool>,
        Option<bool>,
        Option<i32>,
        String,
    ),
);

/// The columns of an orders page: the order's, then its item's (LEFT JOIN).
pub type OrdersPageColumns = (
    (
        Text,
        BigInt,
        Text,
        Text,
        Text,
        BigInt,
        BigInt,
        BigInt,
        BigInt,
        Nullable<Text>,
        Nullable<BigInt>,
        Nullable<Text>,
        BigInt,
        BigInt,
    ),
    (
        Nullable<Text>,
        Nullable<Text>,
        Nullable<Text>,
        Nullable<Text>,
        Nullable<BigInt>,
        Nullable<BigInt>,
        Nullable<BigInt>,
        Nullable<BigInt>,
        Nullable<BigInt>,
    ),
);

pub type OrdersPageRow = (
    (
        String,
        i64,
        String,
        String,
        String,
        i64,
        i64,
        i64,
        i64,
        Option<String>,
        Option<i64>,
        Option<String>,
        i64,
        i64,
    ),
    (
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<i64>,
        Option<i64>,
        Option<i64>,
        Option<i64>,
        Option<i64>,
    ),
);

/// A page statement whose rows have the SQL types `Columns`.
pub struct Page<'a, Columns> {
    statement: &'a PageStatement,
    columns: PhantomData<Columns>,
}

impl<'a, Columns> Page<'a, Columns> {
    pub fn new(statement: &'a PageStatement) -> Self {
        Self {
            statement,
            columns: PhantomData,
        }
    }
}

impl<Columns> QueryFragment<Sqlite> for Page<'_, Columns> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Sqlite>) -> QueryResult<()> {
        // PageStatement::parse checked that there is one bind per `?`.
        let mut pieces = self.statement.sql.split('?');
        out.push_sql(pieces.next().unwrap_or_default());
        for (bind, piece) in self.statement.binds.iter().zip(pieces) {
            match bind {
                Bind::Text(text) => out.push_bind_param::<Text, String>(text)?,
                Bind::Bool(value) => out.push_bind_param::<Bool, bool>(value)?,
                Bind::Integer(value) => out.push_bind_param::<Integer, i32>(value)?,
                Bind::BigInt(value) => out.push_bind_param::<BigInt, i64>(value)?,
            }
            out.push_sql(piece);
        }
        Ok(())
    }
}

impl<Columns> QueryId for Page<'_, Columns> {
    type QueryId = ();

    // No type-level identity: diesel's statement cache then keys it by its SQL text.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Columns: diesel::sql_types::SqlType> Query for Page<'_, Columns> {
    type SqlType = Columns;
}

impl<Columns, Conn> RunQueryDsl<Conn> for Page<'_, Columns> {}
