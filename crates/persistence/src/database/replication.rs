//! The read replicas as the rest of the service sees them: each key's write position after
//! its adjustment, the figures for `/metrics`, and one readiness line per replica (never a
//! required one: the primary answers the reads of a replica that is down).

use std::sync::Arc;

use async_trait::async_trait;
use shop_domain::api_key::KeyPrefix;
use shop_ports::port::{HealthCheck, ReplicaMonitor, ReplicaState, ReplicaStats, Unhealthy};

use crate::database::{Database, Pool};

/// The readiness names of the replicas, in the order of `DATABASE_REPLICA_URLS`.
const NAMES: [&str; 8] = [
    "replica_1",
    "replica_2",
    "replica_3",
    "replica_4",
    "replica_5",
    "replica_6",
    "replica_7",
    "replica_8",
];

/// At most this many replicas (one readiness name each).
pub const MAX_REPLICAS: usize = NAMES.len();

impl Database {
    /// After a key's write committed: its later reads must see it (`database/replicas.rs`).
    pub(crate) async fn remember_write(&self, key: &KeyPrefix) {
        let (Some(replicas), Pool::Postgres(primary)) = (self.replicas.as_deref(), &self.pool)
        else {
            return;
        };
        match self.acquire(primary.get()).await {
            Ok(mut conn) => replicas.remember_write(key, &mut conn).await,
            Err(error) => tracing::warn!(
                error = %error,
                "could not read the primary's log position after a write"
            ),
        }
    }

    /// One readiness check per replica; none when there are no replicas.
    pub fn replica_checks(&self) -> Vec<Arc<dyn HealthCheck>> {
        let count = self.replicas.as_ref().map_or(0, |r| r.members().len());
        (0..count.min(MAX_REPLICAS))
            .map(|index| {
                Arc::new(ReplicaCheck {
                    database: self.clone(),
                    index,
                }) as Arc<dyn HealthCheck>
            })
            .collect()
    }
}

impl ReplicaMonitor for Database {
    fn replica_stats(&self) -> ReplicaStats {
        self.replicas
            .as_ref()
            .map(|replicas| replicas.stats())
            .unwrap_or_default()
    }
}

/// A replica's standing as its monitor last saw it: `ok` in rotation, `lagging`, or
/// `unreachable` (down).
struct ReplicaCheck {
    database: Database,
    index: usize,
}

#[derive(Debug, thiserror::Error)]
#[error("replica {name} is {state}")]
struct OutOfRotation {
    name: String,
    state: &'static str,
}

#[async_trait]
impl HealthCheck for ReplicaCheck {
    fn name(&self) -> &'static str {
        NAMES[self.index]
    }

    fn required(&self) -> bool {
        false
    }

    async fn check(&self) -> Result<(), Unhealthy> {
        let Some(member) = self
            .database
            .replicas
            .as_ref()
            .and_then(|replicas| replicas.members().get(self.index))
        else {
            return Ok(());
        };
        let state = member.standing_state();
        let cause = || {
            Box::new(OutOfRotation {
                name: member.name().to_owned(),
                state: state.as_str(),
            })
        };
        match state {
            ReplicaState::InRotation => Ok(()),
            ReplicaState::Lagging => Err(Unhealthy::Lagging(cause())),
            ReplicaState::Down => Err(Unhealthy::Unreachable(cause())),
        }
    }
}
