//! The keys' "last used", written off the requests' path.
//!
//! The authenticator notes a key's first use of each minute (one atomic compare per request);
//! this writer takes the note without waiting, and one task writes it to the key's row. When
//! the queue is full (the database is slow or gone), a note is dropped and counted: the time
//! the console shows is then a minute or so older, and no request ever waits for it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_ports::port::{ApiKeyStore, KeyUsageSink};
use tokio::sync::mpsc;

pub struct KeyUsageWriter {
    notes: mpsc::Sender<(KeyPrefix, Timestamp)>,
    dropped: AtomicU64,
}

impl KeyUsageWriter {
    /// A minute of notes for 4,096 keys, each noted once a minute by each instance.
    pub const CAPACITY: usize = 4_096;

    /// Starts the writing task on the current tokio runtime; it ends with the writer.
    pub fn start(keys: Arc<dyn ApiKeyStore>) -> Arc<Self> {
        let (notes, mut queue) = mpsc::channel::<(KeyPrefix, Timestamp)>(Self::CAPACITY);
        tokio::spawn(async move {
            while let Some((prefix, at)) = queue.recv().await {
                if let Err(error) = keys.record_key_use(&prefix, at).await {
                    tracing::warn!(key_prefix = %prefix, error = %error, "could not record a key's last use");
                }
            }
        });
        Arc::new(Self {
            notes,
            dropped: AtomicU64::new(0),
        })
    }

    /// Notes dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

impl KeyUsageSink for KeyUsageWriter {
    fn key_used(&self, prefix: &KeyPrefix, at: Timestamp) {
        if self.notes.try_send((prefix.clone(), at)).is_err() {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use shop_ports::port::MockApiKeyStore;
    use tokio::sync::Notify;

    use super::*;

    #[tokio::test]
    async fn notes_reach_the_store_in_the_background() {
        let written = Arc::new(Notify::new());
        let signal = Arc::clone(&written);
        let mut keys = MockApiKeyStore::new();
        keys.expect_record_key_use()
            .withf(|prefix, at| prefix.as_str() == "0a1b2c3d" && at.millis() == 60_000)
            .times(1)
            .returning(move |_, _| {
                signal.notify_one();
                Ok(())
            });
        let writer = KeyUsageWriter::start(Arc::new(keys));
        writer.key_used(
            &KeyPrefix::parse("0a1b2c3d").unwrap(),
            Timestamp::from_millis(60_000),
        );
        tokio::time::timeout(Duration::from_secs(5), written.notified())
            .await
            .expect("the note was written");
        assert_eq!(writer.dropped(), 0);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_full_queue_drops_notes_instead_of_holding_the_request() {
        // On a current-thread runtime the writing task cannot run while this test does not
        // yield: the queue fills up, and every note past it is dropped at once.
        let mut keys = MockApiKeyStore::new();
        keys.expect_record_key_use().returning(|_, _| Ok(()));
        let writer = KeyUsageWriter::start(Arc::new(keys));
        let prefix = KeyPrefix::parse("0a1b2c3d").unwrap();
        for minute in 0..(KeyUsageWriter::CAPACITY as i64 + 10) {
            writer.key_used(&prefix, Timestamp::from_millis(minute * 60_000));
        }
        assert_eq!(writer.dropped(), 10);
    }
}
