//! Where an API read runs on SQLite: on the thread that asks for it.
//!
//! diesel-async's wrapper hands every SQLite statement to tokio's blocking pool and waits for it
//! there. For a write that is right: a commit waits for the disk (`synchronous = FULL`), and a
//! worker thread must not wait with it. For a read, the hop to another thread and back (two
//! wake-ups, two context switches, the rows freed on another thread than the one that allocated
//! them) is a large part of a list page's cost, and leaves cores idle while requests wait
//! (docs/performance-log.md, "SQLite reads on the calling thread").
//!
//! So the pool of read connections runs each statement right away, on the actix worker that
//! awaits it. What that costs: while a read runs, the other requests of that worker wait, as
//! they wait while it serialises a response. A read never waits for a writer (WAL), and its
//! statements are bounded by the page. The writers keep the blocking pool, and `query_only`
//! keeps any write off these connections.

use std::error::Error;
use std::future::{Future, ready};
use std::pin::Pin;

use diesel_async::sync_connection_wrapper::SpawnBlocking;

type Answer<'a, R> =
    Pin<Box<dyn Future<Output = Result<R, Box<dyn Error + Send + Sync + 'static>>> + Send + 'a>>;

/// Runs each task of a connection on the caller's thread, before returning its answer.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OnCallingThread;

impl SpawnBlocking for OnCallingThread {
    fn spawn_blocking<'a, R>(&mut self, task: impl FnOnce() -> R + Send + 'static) -> Answer<'a, R>
    where
        R: Send + 'static,
    {
        Box::pin(ready(Ok(task())))
    }

    fn get_runtime() -> Self {
        OnCallingThread
    }
}
