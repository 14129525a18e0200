//! Where each API key's last write position is kept (`shop_ports::port::WritePositions`), so
//! that its reads wait for a replica that has replayed it (issue 22).
//!
//! - [`LocalWritePositions`]: in this process. Right for one instance: another instance would
//!   not know the key's writes, and could answer its reads from a replica that is behind.
//! - [`RedisWritePositions`]: in Redis (when `REDIS_URL` is set), so every instance knows,
//!   with the local map in front: this instance's own writes are known even while Redis is
//!   not answering. A Redis that does not answer makes `last` fail, and the reads of that
//!   request go to the primary: slower, never stale.
//!
//! A position is kept for [`KEPT_FOR`], far longer than a replica in rotation may lag
//! (`REPLICA_MAX_LAG_MS`): after that every replica in rotation has replayed it anyway.

use std::time::Duration;

use async_trait::async_trait;
use deadpool_redis::redis::{self, AsyncConnectionConfig, IntoConnectionInfo};
use deadpool_redis::{Manager, Pool, Runtime};
use shop_domain::api_key::KeyPrefix;
use shop_ports::BoxError;
use shop_ports::port::{WritePosition, WritePositions};

/// How long a key's last write position is kept.
pub const KEPT_FOR: Duration = Duration::from_secs(300);

/// The most a position read or write may wait for Redis.
const REDIS_TIMEOUT: Duration = Duration::from_millis(250);

/// Keeps the larger of the stored and the new position: two instances may write for one key.
const REMEMBER: &str = r"
local stored = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > stored then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
";

pub struct LocalWritePositions {
    positions: moka::sync::Cache<String, u64>,
}

impl Default for LocalWritePositions {
    fn default() -> Self {
        Self {
            positions: moka::sync::Cache::builder()
                .time_to_live(KEPT_FOR)
                .max_capacity(1_000_000)
                .build(),
        }
    }
}

impl LocalWritePositions {
    fn remember(&self, key: &KeyPrefix, position: WritePosition) {
        self.positions
            .entry(key.as_str().to_owned())
            .and_upsert_with(|stored| {
                stored.map_or(position.0, |stored| (*stored.value()).max(position.0))
            });
    }

    fn last(&self, key: &KeyPrefix) -> Option<WritePosition> {
        self.positions.get(key.as_str()).map(WritePosition)
    }
}

#[async_trait]
impl WritePositions for LocalWritePositions {
    async fn remember(&self, key: &KeyPrefix, position: WritePosition) {
        LocalWritePositions::remember(self, key, position);
    }

    async fn last(&self, key: &KeyPrefix) -> Result<Option<WritePosition>, BoxError> {
        Ok(LocalWritePositions::last(self, key))
    }
}

pub struct RedisWritePositions {
    pool: Pool,
    script: redis::Script,
    key_prefix: String,
    local: LocalWritePositions,
}

#[derive(Debug, thiserror::Error)]
#[error("Redis did not answer within {0:?}")]
struct TimedOut(Duration);

impl RedisWritePositions {
    /// Parses `url` and prepares a pool; connects lazily.
    pub fn new(url: &str, key_prefix: &str) -> Result<Self, BoxError> {
        let info = url.into_connection_info()?;
        let connection = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(REDIS_TIMEOUT))
            .set_response_timeout(Some(REDIS_TIMEOUT));
        let manager = Manager::new_with_config(info, connection)?;
        let pool = Pool::builder(manager)
            .max_size(16)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(REDIS_TIMEOUT))
            .create_timeout(Some(REDIS_TIMEOUT))
            .recycle_timeout(Some(REDIS_TIMEOUT))
            .build()?;
        Ok(Self {
            pool,
            script: redis::Script::new(REMEMBER),
            key_prefix: format!("{key_prefix}wp:"),
            local: LocalWritePositions::default(),
        })
    }

    fn key(&self, key: &KeyPrefix) -> String {
        format!("{}{}", self.key_prefix, key.as_str())
    }
}

#[async_trait]
impl WritePositions for RedisWritePositions {
    async fn remember(&self, key: &KeyPrefix, position: WritePosition) {
        self.local.remember(key, position);
        let kept_ms = u64::try_from(KEPT_FOR.as_millis()).unwrap_or(u64::MAX);
        let stored = tokio::time::timeout(REDIS_TIMEOUT, async {
            let mut connection = self.pool.get().await.map_err(BoxError::from)?;
            self.script
                .key(self.key(key))
                .arg(position.0)
                .arg(kept_ms)
                .invoke_async::<i64>(&mut connection)
                .await
                .map_err(BoxError::from)
        })
        .await;
        match stored {
            Ok(Ok(_)) => {}
            // The other instances may then read this key's next pages from a replica that has
            // not replayed this write yet, for at most the replicas' lag.
            Ok(Err(error)) => {
                tracing::warn!(error = %error, "could not share a key's write position in Redis");
            }
            Err(_) => tracing::warn!(
                timeout_ms = REDIS_TIMEOUT.as_millis(),
                "could not share a key's write position in Redis"
            ),
        }
    }

    async fn last(&self, key: &KeyPrefix) -> Result<Option<WritePosition>, BoxError> {
        let shared = tokio::time::timeout(REDIS_TIMEOUT, async {
            let mut connection = self.pool.get().await.map_err(BoxError::from)?;
            redis::cmd("GET")
                .arg(self.key(key))
                .query_async::<Option<u64>>(&mut connection)
                .await
                .map_err(BoxError::from)
        })
        .await
        .map_err(|_| BoxError::from(TimedOut(REDIS_TIMEOUT)))??;
        let local = self.local.last(key);
        Ok(shared.map(WritePosition).max(local))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(prefix: &str) -> KeyPrefix {
        KeyPrefix::parse(prefix).unwrap()
    }

    #[tokio::test]
    async fn a_later_position_wins_and_an_earlier_one_is_ignored() {
        let positions = LocalWritePositions::default();
        let a = key("0a1b2c3d");
        assert_eq!(WritePositions::last(&positions, &a).await.unwrap(), None);
        WritePositions::remember(&positions, &a, WritePosition(20)).await;
        WritePositions::remember(&positions, &a, WritePosition(10)).await;
        assert_eq!(
            WritePositions::last(&positions, &a).await.unwrap(),
            Some(WritePosition(20))
        );
        assert_eq!(
            WritePositions::last(&positions, &key("ffffffff"))
                .await
                .unwrap(),
            None
        );
    }
}
