//! A change's stamp written by its own `UPDATE`, for the writes that move a row's stamp in
//! the statement that locks it: the request's time, or a millisecond past the row's last
//! stamp when that is not earlier. The rule is the domain's `Timestamp::stamp_after`; this
//! is its SQL form, for a stamp read and moved under the row's lock in one statement.

/// `stamp_after!(column, at)`: `CASE WHEN column < at THEN at ELSE column + 1 END`, `at` a
/// [`Timestamp`](shop_domain::Timestamp).
macro_rules! stamp_after {
    ($column:expr, $at:expr) => {{
        let at: i64 = shop_domain::Timestamp::millis($at);
        diesel::dsl::case_when::<_, _, diesel::sql_types::BigInt>($column.lt(at), at)
            .otherwise($column + 1)
    }};
}

pub(crate) use stamp_after;
