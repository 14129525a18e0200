/// The error of every read use case.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// No such resource in the caller's shop (another shop's is not found either).
    #[error("not found")]
    NotFound,
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}
