//! The shared store: one Redis sorted set per bucket, changed by one Lua script per call.
//!
//! The script is the domain rule (`shop_domain::rate_limit::SlidingWindow`) written over a
//! sorted set whose scores are the instants of the accepted requests: drop the members at
//! least one window old, count, add one if the count is under the limit. Redis runs a script
//! alone, so two instances can never both take the last slot, and one round trip does it all.
//!
//! Every call is bounded by a short timeout (checkout and script together): a Redis that
//! stopped answering must cost a request milliseconds, never hang it. Errors and timeouts
//! become `RateStoreError`; `FallbackRateStore` decides what happens then.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use deadpool_redis::redis::{self, AsyncConnectionConfig, IntoConnectionInfo};
use deadpool_redis::{Connection, Manager, Pool, Runtime};
use shop_domain::Timestamp;
use shop_domain::rate_limit::{RateBudget, RateStatus};
use shop_ports::port::{RateLimitStore, RateStoreError, Reservation, Slot};

/// Keys are `<prefix><bucket>`; the prefix lets deployments and tests share one Redis.
pub const DEFAULT_KEY_PREFIX: &str = "shop-api:rl:";

/// The most a rate-limit decision may wait for Redis (pool checkout and script together).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(200);

/// Each connection is multiplexed, so a few carry many concurrent requests.
const POOL_SIZE: usize = 8;

/// KEYS[1]: the bucket. ARGV: now (epoch ms), window (ms), limit, 1 to count the request or 0
/// to peek, a member name unique to this request.
/// Returns {1 if allowed, requests in the window afterwards, score of the oldest or -1}.
const SCRIPT: &str = r"
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
-- A request made at t counts while now - t < window: it leaves when it turns window old.
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  allowed = 1
  if ARGV[4] == '1' then
    redis.call('ZADD', key, now, ARGV[5])
    redis.call('PEXPIRE', key, window)
    count = count + 1
  end
end
local oldest = -1
if count > 0 then
  oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
end
return {allowed, count, oldest}
";

/// `REDIS_URL` could not be understood (a configuration mistake, reported at startup).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct RedisConfigError(String);

#[derive(Debug, thiserror::Error)]
#[error("Redis did not answer within {0:?}")]
struct TimedOut(Duration);

pub struct RedisRateStore {
    pool: Pool,
    script: redis::Script,
    key_prefix: String,
    timeout: Duration,
    address: String,
    /// Makes each member name unique across instances: two requests in the same millisecond
    /// must be two members of the set, not one.
    instance: String,
    sequence: AtomicU64,
}

impl RedisRateStore {
    /// Parses `url` and prepares a pool; connects lazily, so an unreachable Redis is not an
    /// error here (see [`RedisRateStore::check`]).
    pub fn new(url: &str, key_prefix: &str) -> Result<Self, RedisConfigError> {
        Self::with_timeout(url, key_prefix, DEFAULT_TIMEOUT)
    }

    pub fn with_timeout(
        url: &str,
        key_prefix: &str,
        timeout: Duration,
    ) -> Result<Self, RedisConfigError> {
        let invalid = |error: &dyn std::fmt::Display| RedisConfigError(error.to_string());
        let info = url.into_connection_info().map_err(|e| invalid(&e))?;
        let address = info.addr().to_string();
        let connection = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout));
        let manager = Manager::new_with_config(info, connection).map_err(|e| invalid(&e))?;
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(timeout))
            .create_timeout(Some(timeout))
            .recycle_timeout(Some(timeout))
            .build()
            .map_err(|e| invalid(&e))?;
        Ok(Self {
            pool,
            script: redis::Script::new(SCRIPT),
            key_prefix: key_prefix.to_owned(),
            timeout,
            address,
            instance: uuid::Uuid::now_v7().simple().to_string(),
            sequence: AtomicU64::new(0),
        })
    }

    /// `host:port` (or socket path) of the server, without credentials: safe to log.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// Connects and loads the script, within `within`: whether Redis answers now.
    pub async fn check(&self, within: Duration) -> Result<(), RateStoreError> {
        self.call(within, async |connection| {
            self.script
                .prepare_invoke()
                .load_async(connection)
                .await
                .map(drop)
        })
        .await
    }

    /// The script's decision; with `count_it`, the member it added when it allowed the
    /// request (the slot to remove to give it back).
    async fn run(
        &self,
        bucket: &str,
        budget: RateBudget,
        now: Timestamp,
        count_it: bool,
    ) -> Result<Reservation, RateStoreError> {
        let member = if count_it {
            self.member(now)
        } else {
            String::new()
        };
        let mut invocation = self.script.prepare_invoke();
        invocation
            .key(self.key(bucket))
            .arg(now.millis())
            .arg(budget.window_millis)
            .arg(budget.limit)
            .arg(u8::from(count_it))
            .arg(&member);
        let (allowed, count, oldest) = self
            .call(self.timeout, async |connection| {
                invocation.invoke_async::<(i64, i64, i64)>(connection).await
            })
            .await?;
        let status = RateStatus {
            allowed: allowed == 1,
            limit: budget.limit,
            remaining: budget
                .limit
                .saturating_sub(u32::try_from(count).unwrap_or(u32::MAX)),
            reset_after_millis: if count > 0 {
                oldest + budget.window_millis - now.millis()
            } else {
                0
            },
        };
        Ok(Reservation {
            status,
            slot: (count_it && status.allowed).then(|| Slot::new(member)),
        })
    }

    /// `command` on a connection of the pool, checkout included, within `within`; its
    /// errors and the timeout as `RateStoreError`.
    async fn call<T>(
        &self,
        within: Duration,
        command: impl AsyncFnOnce(&mut Connection) -> redis::RedisResult<T>,
    ) -> Result<T, RateStoreError> {
        let call = async {
            let mut connection = self.pool.get().await.map_err(store_error)?;
            command(&mut connection).await.map_err(store_error)
        };
        tokio::time::timeout(within, call)
            .await
            .map_err(|_| store_error(TimedOut(within)))?
    }

    /// The sorted set of `bucket`.
    fn key(&self, bucket: &str) -> String {
        format!("{}{bucket}", self.key_prefix)
    }

    fn member(&self, now: Timestamp) -> String {
        let sequence = self.sequence.fetch_add(1, Ordering::Relaxed);
        format!("{}-{}-{sequence}", now.millis(), self.instance)
    }
}

fn store_error(error: impl std::error::Error + Send + Sync + 'static) -> RateStoreError {
    RateStoreError(Box::new(error))
}

#[async_trait]
impl RateLimitStore for RedisRateStore {
    async fn acquire(
        &self,
        bucket: &str,
        budget: RateBudget,
        now: Timestamp,
    ) -> Result<RateStatus, RateStoreError> {
        Ok(self.run(bucket, budget, now, true).await?.status)
    }

    async fn reserve(
        &self,
        bucket: &str,
        budget: RateBudget,
        now: Timestamp,
    ) -> Result<Reservation, RateStoreError> {
        self.run(bucket, budget, now, true).await
    }

    async fn release(&self, bucket: &str, slot: &Slot) -> Result<(), RateStoreError> {
        let key = self.key(bucket);
        self.call(self.timeout, async |connection| {
            redis::cmd("ZREM")
                .arg(&key)
                .arg(slot.as_str())
                .query_async::<i64>(connection)
                .await
        })
        .await?;
        Ok(())
    }

    async fn peek(
        &self,
        bucket: &str,
        budget: RateBudget,
        now: Timestamp,
    ) -> Result<RateStatus, RateStoreError> {
        Ok(self.run(bucket, budget, now, false).await?.status)
    }
}
