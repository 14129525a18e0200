//! The SQL building blocks the reads share, each written for both backends:
//!
//! - `first_rows.rs`: a page's `LIMIT` written into the statement, rounded up, and the page's
//!   ids as a subquery (`= ANY(ARRAY(…))` on PostgreSQL, `IN (…)` on SQLite);
//! - `one_of.rs`: `column IN (ids)` with the ids bound as one value;
//! - `kept_prepared.rs`: an `UPDATE` or single-row `INSERT` marked safe to keep prepared;
//! - `selection.rs`: what a read loads, a page or these ids;
//! - `parents_then_children.rs`: PostgreSQL's page read, the parents' rows then their
//!   children's in one `UNION ALL`, and their assembly;
//! - `by_parent.rs`: SQLite's page read, a parent joined with its children, folded as read;
//! - `stamp.rs`: a change's stamp, moved past the row's last in the row's own `UPDATE`;
//! - `shop_upsert.rs`: `ON CONFLICT (id) DO UPDATE … WHERE shop_id = ?`, and its check;
//! - `values_rows.rs`: a multi-row `INSERT`'s placeholders, for SQLite's batches.

pub(crate) mod by_parent;
pub(crate) mod first_rows;
pub(crate) mod kept_prepared;
pub(crate) mod one_of;
pub(crate) mod parents_then_children;
pub(crate) mod selection;
pub(crate) mod shop_upsert;
pub(crate) mod stamp;
pub(crate) mod values_rows;
