use std::fmt;
use std::sync::Arc;

/// A condition on a resource as it is when a write takes it (`If-Match`): checked inside the
/// write's transaction, after the resource's row is locked, so that of concurrent writes
/// carrying one condition only the first can find it true. The delivery adapter gives it (it
/// knows how the resource is shown, and so its entity tag); the store only calls it.
#[derive(Clone)]
pub struct Precondition<T>(Arc<dyn Fn(&T) -> bool + Send + Sync>);

impl<T> Precondition<T> {
    pub fn new(holds: impl Fn(&T) -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::new(holds))
    }

    pub fn holds(&self, current: &T) -> bool {
        (self.0)(current)
    }
}

impl<T> fmt::Debug for Precondition<T> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("Precondition")
    }
}
