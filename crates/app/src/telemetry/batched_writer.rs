//! The log's writer thread: lines are handed over a bounded channel and written in batches.
//!
//! tracing-appender's `non_blocking` writer, used before, wakes its thread for every line and
//! flushes whenever it has caught up, which on a busy server is after every line or two: one
//! `write(2)`, a futex wake-up of the writer and its spin-then-yield loop per request. On the
//! two cores the service shares with its database, that was a visible share of the CPU of a
//! `GET /me` (see docs/performance-log.md, "Full runs", "What changed since the run of 22
//! November"). Here the thread sleeps on the channel only while the server is quiet;
//! once a line arrives it lets the lines of the next [`GATHER`] pile up without waking it, then
//! writes them with one call. A line therefore appears at most [`GATHER`] after it was logged.
//!
//! No line is dropped: a thread logging while [`BatchedWriter::spawn`]'s `pending` lines wait
//! blocks until the writer has taken them, and after a batch that filled half the queue the
//! writer does not pause, so that such a thread is not kept waiting. The [`FlushGuard`] writes
//! what is left when dropped.

use std::io::{self, Write};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::thread;
use std::time::{Duration, Instant};

use tracing_subscriber::fmt::MakeWriter;

/// How long the writer lets lines gather once one has arrived.
pub const GATHER: Duration = Duration::from_millis(20);

/// How long dropping the [`FlushGuard`] waits for the last lines to be written (a blocked
/// stderr must not stop the process from exiting).
const SHUTDOWN_WAIT: Duration = Duration::from_secs(1);

enum Message {
    Line(Vec<u8>),
    Stop,
}

/// The `MakeWriter` given to the subscriber: each formatted event, one `write_all` of the
/// whole line, becomes one message to the writer thread.
#[derive(Clone)]
pub struct BatchedWriter {
    lines: SyncSender<Message>,
}

/// Stops the writer thread once it has written every line sent before the drop.
#[must_use = "dropping the guard stops the log writer"]
pub struct FlushGuard {
    lines: SyncSender<Message>,
    stopped: Receiver<()>,
}

impl BatchedWriter {
    /// Starts the thread writing to `out`; at most `pending` lines wait for it.
    pub fn spawn<W>(out: W, pending: usize) -> io::Result<(Self, FlushGuard)>
    where
        W: Write + Send + 'static,
    {
        let (lines, received) = mpsc::sync_channel(pending);
        let (done, stopped) = mpsc::sync_channel(1);
        thread::Builder::new()
            .name("log-writer".into())
            .spawn(move || {
                // Returns with the receiver dropped: a line logged from now on fails at once
                // instead of waiting in a queue that nobody reads.
                write_batches(out, received, pending);
                // The guard may have stopped waiting: nobody to tell is fine.
                let _ = done.send(());
            })?;
        Ok((
            Self {
                lines: lines.clone(),
            },
            FlushGuard { lines, stopped },
        ))
    }
}

/// Until stopped (or every sender is gone): wait for a line, let more gather, write them all.
fn write_batches<W: Write>(mut out: W, lines: Receiver<Message>, pending: usize) {
    let mut batch = Vec::new();
    let mut crowded = false;
    while let Ok(Message::Line(first)) = lines.recv() {
        if !crowded {
            thread::sleep(GATHER);
        }
        batch.extend_from_slice(&first);
        let mut taken = 1;
        let mut stop = false;
        while let Ok(message) = lines.try_recv() {
            match message {
                Message::Line(line) => {
                    batch.extend_from_slice(&line);
                    taken += 1;
                }
                Message::Stop => {
                    stop = true;
                    break;
                }
            }
        }
        // A log that cannot be written has nowhere to report it; the service goes on.
        let _ = out.write_all(&batch).and_then(|()| out.flush());
        batch.clear();
        if stop {
            return;
        }
        // Half the queue in one batch: loggers may be waiting for room, so the next batch is
        // written as soon as it is taken.
        crowded = taken > pending / 2;
    }
}

impl<'a> MakeWriter<'a> for BatchedWriter {
    type Writer = &'a Self;

    fn make_writer(&'a self) -> Self::Writer {
        self
    }
}

impl Write for &BatchedWriter {
    fn write(&mut self, line: &[u8]) -> io::Result<usize> {
        self.lines
            .send(Message::Line(line.to_vec()))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the log writer has stopped"))?;
        Ok(line.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for FlushGuard {
    fn drop(&mut self) {
        let deadline = Instant::now() + SHUTDOWN_WAIT;
        let mut stop = Message::Stop;
        loop {
            match self.lines.try_send(stop) {
                Ok(()) => break,
                Err(TrySendError::Full(message)) if Instant::now() < deadline => {
                    stop = message;
                    thread::sleep(Duration::from_millis(1));
                }
                Err(_) => return,
            }
        }
        let _ = self
            .stopped
            .recv_timeout(deadline.saturating_duration_since(Instant::now()));
    }
}

#[cfg(test)]
mod tests;
