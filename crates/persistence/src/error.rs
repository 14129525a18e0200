//! The adapter's internal error, and its one mapping onto the ports' `StoreError`.
//!
//! Messages here are for logs only: `StoreError`'s own `Display` is generic, and the HTTP layer
//! never shows a cause, so SQL and row contents never reach a client.

use std::time::Duration;

use diesel::result::{DatabaseErrorInformation, DatabaseErrorKind, Error as QueryError};
use diesel_async::pooled_connection::deadpool::PoolError;
use shop_ports::StoreError;

#[derive(Debug, thiserror::Error)]
pub(crate) enum DbError {
    #[error("no database connection became free within {0:?}")]
    PoolTimeout(Duration),
    #[error("could not get a database connection")]
    Pool(#[source] PoolError),
    #[error("database query failed")]
    Query(#[from] QueryError),
    /// A stored value that the domain refuses: a bug or a hand-edited row.
    #[error("corrupt {table} row `{id}`: {problem}")]
    Corrupt {
        table: &'static str,
        id: String,
        problem: String,
    },
    /// A write that found the database in a state it cannot be in (a row missing, or owned by
    /// another shop, after it was checked).
    #[error("{0}")]
    Invariant(String),
    /// A concurrent transaction changed what this one decided on (a variant's stock, between
    /// the check of its range and the update): roll back and decide again.
    #[error("{0}")]
    Overtaken(String),
    /// The write took longer than the sync contract allows between stamping its rows and
    /// committing them (`crate::database::write_span`); rolled back, to be retried.
    #[error("the write took {0:?}, longer than a write may take to commit")]
    WriteSpanExceeded(Duration),
}

impl DbError {
    /// "Try again later" rather than "a bug": what [`StoreError::Unavailable`] is made of.
    pub(crate) fn is_unavailable(&self) -> bool {
        match self {
            DbError::PoolTimeout(_) | DbError::WriteSpanExceeded(_) => true,
            DbError::Pool(pool_error) => matches!(
                pool_error,
                PoolError::Timeout(_) | PoolError::Backend(_) | PoolError::Closed
            ),
            DbError::Query(query_error) => is_unavailable(query_error),
            DbError::Corrupt { .. } | DbError::Invariant(_) | DbError::Overtaken(_) => false,
        }
    }

    pub(crate) fn corrupt(table: &'static str, id: &str, problem: impl ToString) -> Self {
        Self::Corrupt {
            table,
            id: id.to_owned(),
            problem: problem.to_string(),
        }
    }
}

impl From<DbError> for StoreError {
    fn from(error: DbError) -> Self {
        match &error {
            DbError::PoolTimeout(_) | DbError::WriteSpanExceeded(_) => {
                StoreError::Unavailable(Box::new(error))
            }
            DbError::Pool(pool_error) => match pool_error {
                PoolError::Timeout(_) | PoolError::Backend(_) | PoolError::Closed => {
                    StoreError::Unavailable(Box::new(error))
                }
                // Configuration mistakes, not outages.
                PoolError::NoRuntimeSpecified | PoolError::PostCreateHook(_) => {
                    StoreError::Failure(Box::new(error))
                }
            },
            DbError::Query(QueryError::DatabaseError(DatabaseErrorKind::UniqueViolation, info)) => {
                tracing::debug!(message = info.message(), "unique violation");
                StoreError::Conflict {
                    what: unique_target(info.as_ref()),
                }
            }
            DbError::Query(query_error) if is_unavailable(query_error) => {
                StoreError::Unavailable(Box::new(error))
            }
            DbError::Query(_)
            | DbError::Corrupt { .. }
            | DbError::Invariant(_)
            | DbError::Overtaken(_) => StoreError::Failure(Box::new(error)),
        }
    }
}

/// Which unique value was taken. PostgreSQL names the constraint and table
/// (`shops_slug_key`, `api_keys`); SQLite only says `UNIQUE constraint failed: shops.slug`.
/// The only unique column of `api_keys` is its prefix; an owner's e-mail is `owners_email_key`
/// or `owners.email`; any other violation is an id.
fn unique_target(info: &dyn DatabaseErrorInformation) -> &'static str {
    let mentions = |word: &str| {
        [
            info.constraint_name(),
            info.table_name(),
            Some(info.message()),
        ]
        .into_iter()
        .flatten()
        .any(|text| text.contains(word))
    };
    if mentions("slug") {
        "slug"
    } else if mentions("email") {
        "email"
    } else if mentions("prefix") || mentions("api_keys") {
        "prefix"
    } else {
        "id"
    }
}

/// Errors that say "try again later" rather than "this is a bug": a lost or unusable
/// connection, PostgreSQL's statement timeout or shutdown, or SQLite still locked after
/// `busy_timeout`. diesel gives none of the last three an error kind of its own, nor the
/// SQLSTATE, hence the messages.
fn is_unavailable(error: &QueryError) -> bool {
    match error {
        QueryError::DatabaseError(
            DatabaseErrorKind::UnableToSendCommand | DatabaseErrorKind::ClosedConnection,
            _,
        ) => true,
        QueryError::DatabaseError(_, info) => {
            let message = info.message();
            UNAVAILABLE_MESSAGES
                .iter()
                .any(|fragment| message.contains(fragment))
        }
        _ => false,
    }
}

/// PostgreSQL's statement timeout (57014) and its operator interventions (57P01 shutdown,
/// 57P02 crash of another backend, 57P03 starting up or shutting down): a query cut by a
/// database restart is an outage the client should retry, not a bug. Then SQLite's busy lock.
const UNAVAILABLE_MESSAGES: [&str; 5] = [
    "statement timeout",
    "terminating connection",
    "the database system is",
    "connection closed",
    "database is locked",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn database_error(kind: DatabaseErrorKind, message: &str) -> DbError {
        DbError::Query(QueryError::DatabaseError(
            kind,
            Box::new(message.to_owned()),
        ))
    }

    #[test]
    fn unique_violations_name_what_was_taken() {
        let cases = [
            ("UNIQUE constraint failed: shops.slug", "slug"),
            ("UNIQUE constraint failed: api_keys.prefix", "prefix"),
            ("UNIQUE constraint failed: products.id", "id"),
            ("UNIQUE constraint failed: owners.email", "email"),
            ("UNIQUE constraint failed: owners.id", "id"),
        ];
        for (message, what) in cases {
            let mapped =
                StoreError::from(database_error(DatabaseErrorKind::UniqueViolation, message));
            assert!(
                matches!(mapped, StoreError::Conflict { what: w } if w == what),
                "{message}"
            );
        }
    }

    #[test]
    fn outages_are_unavailable_and_the_rest_failures() {
        let unavailable = [
            DbError::PoolTimeout(Duration::from_secs(1)),
            database_error(DatabaseErrorKind::ClosedConnection, "gone"),
            database_error(DatabaseErrorKind::UnableToSendCommand, "gone"),
            database_error(DatabaseErrorKind::Unknown, "database is locked"),
            database_error(
                DatabaseErrorKind::Unknown,
                "terminating connection due to administrator command",
            ),
            database_error(
                DatabaseErrorKind::Unknown,
                "the database system is shutting down",
            ),
            database_error(
                DatabaseErrorKind::Unknown,
                "canceling statement due to statement timeout",
            ),
        ];
        for error in unavailable {
            assert!(matches!(
                StoreError::from(error),
                StoreError::Unavailable(_)
            ));
        }
        let failures = [
            database_error(DatabaseErrorKind::ForeignKeyViolation, "FOREIGN KEY"),
            DbError::Query(QueryError::NotFound),
            DbError::corrupt("products", "p1", "bad tax rate"),
        ];
        for error in failures {
            assert!(matches!(StoreError::from(error), StoreError::Failure(_)));
        }
    }
}
