//! Why the database could not be opened, from a URL refused to a pool not built.

use std::path::PathBuf;

use diesel::ConnectionError;
use diesel_async::pooled_connection::deadpool::BuildError;

/// Why the database could not be opened. Each message is one line; the cause, when there is
/// one, is the error's `source`.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error(
        "unsupported database URL scheme `{0}`: expected sqlite://, postgres:// or postgresql://"
    )]
    UnsupportedScheme(String),
    #[error("invalid database URL: {0}")]
    InvalidUrl(&'static str),
    #[error("could not create the directory {} for the SQLite database", .path.display())]
    CreateDirectory {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("could not connect to the {backend} database")]
    Connect {
        backend: &'static str,
        #[source]
        source: ConnectionError,
    },
    #[error("could not apply the database migrations")]
    Migrate(#[source] shop_ports::BoxError),
    #[error("could not build the database connection pool")]
    Pool(#[source] BuildError),
}
