//! SQLite's writer thread: where an API write's transaction runs, from the wait for its turn
//! to its commit (`write_transaction!`).
//!
//! Why a thread of its own: SQLite writes one transaction at a time, so the process's
//! throughput of writes is one over the time each holds the write turn (`write_queue.rs`).
//! On the HTTP server's threads that time included waits that were no work at all: the turn
//! passed on at a commit woke the next writer on its worker thread, behind whatever that
//! worker had to do first (parsing and answering other requests), and its `COMMIT` was handed
//! to tokio's blocking pool and back. Under a load of writes the machine was a third idle
//! while the writers waited (docs/performance-log.md, "SQLite's writer thread"). Here the
//! writes are the thread's only work: the next writer runs as soon as the turn is passed on,
//! and every statement, `BEGIN IMMEDIATE` and `COMMIT` included, runs on this thread, as the
//! ceiling's transactions run on theirs. Waiting for the disk here delays only writers, who
//! would wait for the turn anyway.
//!
//! The thread starts with the first write and stops when the last handle of its database is
//! dropped. A write's task runs to its end even if the request that asked for it is gone, as
//! a statement handed to the blocking pool does.

use std::cell::Cell;
use std::future::Future;
use std::sync::OnceLock;

use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tracing::Instrument as _;

use crate::error::DbError;

thread_local! {
    static ON_WRITER_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// Whether the calling thread is a writer thread: its statements need no other thread.
pub(crate) fn on_writer_thread() -> bool {
    ON_WRITER_THREAD.get()
}

/// One database's writer thread, started by its first write ([`WriterThread::run`]).
#[derive(Default)]
pub(crate) struct WriterThread {
    started: OnceLock<Option<Running>>,
}

struct Running {
    runtime: Handle,
    /// Dropped with the database's last handle: the thread then ends.
    _stop: oneshot::Sender<()>,
}

impl WriterThread {
    /// Runs `write` on the writer thread and answers what it returns. When the thread cannot
    /// be started (the system refused one), `write` runs on the calling task, as before the
    /// thread existed.
    pub(crate) async fn run<T, E, F>(&self, write: F) -> Result<T, E>
    where
        F: Future<Output = Result<T, E>> + Send + 'static,
        T: Send + 'static,
        E: From<DbError> + Send + 'static,
    {
        let Some(running) = self.started.get_or_init(Running::start) else {
            return write.await;
        };
        match running
            .runtime
            .spawn(write.instrument(tracing::Span::current()))
            .await
        {
            Ok(answer) => answer,
            Err(failed) if failed.is_panic() => std::panic::resume_unwind(failed.into_panic()),
            Err(_cancelled) => {
                Err(DbError::Invariant("the SQLite writer thread stopped".into()).into())
            }
        }
    }
}

impl Running {
    fn start() -> Option<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .inspect_err(|error| tracing::warn!(%error, "no SQLite writer thread"))
            .ok()?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || {
                ON_WRITER_THREAD.set(true);
                // Ends when the sender is dropped; the runtime is dropped with this thread.
                runtime.block_on(async {
                    let _ = stopped.await;
                });
            })
            .inspect_err(|error| tracing::warn!(%error, "no SQLite writer thread"))
            .ok()?;
        Some(Self {
            runtime: handle,
            _stop: stop,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    fn thread_name() -> Option<String> {
        std::thread::current().name().map(str::to_owned)
    }

    #[tokio::test]
    async fn a_write_runs_on_the_writer_thread_and_its_answer_comes_back() {
        let writer = WriterThread::default();
        let ran_on = writer
            .run(async { Ok::<_, DbError>((thread_name(), on_writer_thread())) })
            .await
            .unwrap();
        assert_eq!(ran_on, (Some("sqlite-writer".to_owned()), true));
        assert!(!on_writer_thread(), "the caller's thread is not the writer");
        let refused: Result<(), DbError> = writer
            .run(async { Err(DbError::Invariant("refused".into())) })
            .await;
        assert!(matches!(refused, Err(DbError::Invariant(message)) if message == "refused"));
    }

    #[tokio::test]
    #[should_panic(expected = "a write's own panic")]
    async fn a_write_that_panics_panics_its_caller() {
        let writer = WriterThread::default();
        let _: Result<(), DbError> = writer.run(async { panic!("a write's own panic") }).await;
    }

    /// Says when the thread it was left on ends (thread-locals are dropped with it).
    struct ThreadEnd {
        _told: mpsc::Sender<()>,
    }

    thread_local! {
        static END: std::cell::RefCell<Option<ThreadEnd>> = const { std::cell::RefCell::new(None) };
    }

    #[tokio::test]
    async fn the_thread_ends_with_the_last_handle_of_its_database() {
        let writer = WriterThread::default();
        let (told, ended) = mpsc::channel();
        writer
            .run(async move {
                END.set(Some(ThreadEnd { _told: told }));
                Ok::<_, DbError>(())
            })
            .await
            .unwrap();
        assert_eq!(
            ended.recv_timeout(Duration::from_millis(200)),
            Err(mpsc::RecvTimeoutError::Timeout),
            "alive while its handle is"
        );
        drop(writer);
        assert_eq!(
            ended.recv_timeout(Duration::from_secs(10)),
            Err(mpsc::RecvTimeoutError::Disconnected),
            "ended after its handle was dropped"
        );
    }
}
