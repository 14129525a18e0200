//! Who may use the API and the console: shops (`shops.rs`), their API keys (`keys.rs`), the
//! owners' accounts (`owners.rs`) and console sessions (`sessions.rs`), and the key that signs
//! the console's device cookies (`device_secret.rs`). None of them is an API read: they run on
//! the primary (on SQLite, the writers' pool) with `with_conn!` or `in_transaction!`.

mod device_secret;
mod keys;
mod owners;
mod sessions;
mod shops;
