//! The black-box suite: every test starts the real server on a fresh database and talks HTTP
//! to it, on SQLite and (when `TEST_DATABASE_URL` is set) on PostgreSQL.

mod support;

mod auth;
mod errors;
mod fixtures;
mod me;
mod products;
mod products_paging;
