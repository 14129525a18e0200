//! What operators ask of the outside world: is a dependency usable now (readiness), and how
//! busy is the connection pool (metrics). Neither is a business rule; both are read by the
//! operational routes of `shop-http`.

use async_trait::async_trait;

use crate::BoxError;

/// A dependency the service needs, checked by the readiness probe.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait HealthCheck: Send + Sync {
    /// A short stable name for the readiness report: `database`, `redis`.
    fn name(&self) -> &'static str;

    /// Whether the instance must be taken out of rotation while this check fails. A
    /// dependency the service can do without for a while (a cache it falls back from) is
    /// reported but does not make the instance unready.
    fn required(&self) -> bool;

    /// `Ok` when the dependency answers now. Implementations bound their own wait (a pool
    /// checkout timeout, a connect timeout); callers add an overall deadline anyway.
    async fn check(&self) -> Result<(), Unhealthy>;
}

/// Why a dependency is not usable. The `reason` is public (it is in the probe's JSON); the
/// source is for the log line only.
#[derive(Debug, thiserror::Error)]
pub enum Unhealthy {
    /// Cannot be reached, or did not answer in time.
    #[error("unreachable")]
    Unreachable(#[source] BoxError),
    /// The database answers but lacks migrations this binary embeds (a restored backup, or a
    /// database another version migrated back down).
    #[error("{missing} embedded migration(s) not applied")]
    SchemaBehind { missing: usize },
    /// Answers, but too far behind to serve (a read replica).
    #[error("lagging")]
    Lagging(#[source] BoxError),
}

impl Unhealthy {
    /// A stable snake_case word for the probe's JSON.
    pub fn reason(&self) -> &'static str {
        match self {
            Self::Unreachable(_) => "unreachable",
            Self::SchemaBehind { .. } => "schema_outdated",
            Self::Lagging(_) => "lagging",
        }
    }
}

/// How a connection pool is used, read at each metrics scrape.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait PoolMonitor: Send + Sync {
    fn pool_stats(&self) -> PoolStats;
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Connections the pool may open at most.
    pub max_size: usize,
    /// Connections open now, idle or lent out.
    pub open: usize,
    /// Connections lent out to a query now.
    pub in_use: usize,
    /// Callers waiting for a connection now.
    pub waiting: usize,
    /// Checkouts that gave up since the start (the request was answered 503).
    pub wait_timeouts: u64,
}

/// How the database's read replicas stand, read at each metrics scrape and by the readiness
/// probe.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait ReplicaMonitor: Send + Sync {
    fn replica_stats(&self) -> ReplicaStats;
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplicaStats {
    pub replicas: Vec<ReplicaStatus>,
    /// API reads answered by the primary, and by a replica, since the start.
    pub reads_on_primary: u64,
    pub reads_on_replicas: u64,
    /// Times a replica entered or left the rotation since the start.
    pub rotation_changes: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaStatus {
    /// `host:port/database`, without credentials.
    pub name: String,
    pub state: ReplicaState,
    /// How far behind the primary it was at the last poll; `None` when down.
    pub lag_ms: Option<u64>,
}

/// Where a replica stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplicaState {
    /// Answers and is close enough behind the primary: reads go to it.
    InRotation,
    /// Answers but is further behind than allowed: its reads go to the primary.
    Lagging,
    /// Does not answer: its reads go to the primary.
    Down,
}

impl ReplicaState {
    /// A stable snake_case word for logs, the readiness report and metrics labels.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InRotation => "in_rotation",
            Self::Lagging => "lagging",
            Self::Down => "down",
        }
    }
}
