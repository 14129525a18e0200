//! The error every store port can return.

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be reached in time (pool exhausted, connection refused,
    /// statement timeout). Callers answer 503 and may retry.
    #[error("the database is unavailable")]
    Unavailable(#[source] BoxError),
    /// A unique value is already taken (`what` names it: "slug", "prefix", ...).
    #[error("this {what} is already taken")]
    Conflict { what: &'static str },
    /// Anything else: a bug or a corrupt row. Callers answer 500.
    #[error("database failure")]
    Failure(#[source] BoxError),
}

impl StoreError {
    pub fn failure(error: impl Into<BoxError>) -> Self {
        Self::Failure(error.into())
    }
}

/// `Display` of an error and all its sources (`error: cause: cause`), for the log line of a
/// failure that the client is only told happened; every delivery adapter writes them alike.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
