//! PostgreSQL streaming replicas for the API's reads (issue 22).
//!
//! A monitor task polls, every [`POLL`], the primary's log position (`pg_current_wal_lsn()`)
//! and each replica's replayed position (`pg_last_wal_replay_lsn()`); requests never ask a
//! replica where it stands. A replica's lag is how long ago the primary first passed the
//! position the replica has replayed (0 when it has replayed all the primary has written).
//! A replica is in rotation while it answers and lags at most `max_lag`; otherwise it is
//! lagging or down, its reads go to the primary, and it comes back by itself. Each change is
//! one log line and one count in `/metrics`.
//!
//! A read goes to a replica only when its caller's [`ReadFrom`] allows it ([`Replicas::for_read`]):
//! any replica in rotation, or one that has replayed the key's last write. A read a replica
//! fails runs again on the primary, and an unreachable replica leaves the rotation at once.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use diesel::QueryableByName;
use diesel::sql_types::{Nullable, Text};
use diesel_async::pooled_connection::deadpool::Pool as DeadPool;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use shop_domain::api_key::KeyPrefix;
use shop_ports::port::{
    ReadFrom, ReplicaState, ReplicaStats, ReplicaStatus, WritePosition, WritePositions,
};

use super::checkout::checkout;
use crate::error::DbError;

/// How often the monitor polls the primary and the replicas.
pub(crate) const POLL: Duration = Duration::from_millis(100);

/// How long a poll, or a replica's checkout for a read, may wait before it counts as down.
const REPLICA_WAIT: Duration = Duration::from_secs(1);

/// The replicas of a PostgreSQL primary, and where each stands.
pub(crate) struct Replicas {
    members: Vec<Member>,
    positions: Arc<dyn WritePositions>,
    max_lag: Duration,
    next: AtomicUsize,
    reads_on_primary: AtomicU64,
    reads_on_replicas: AtomicU64,
    rotation_changes: AtomicU64,
}

pub(crate) struct Member {
    name: String,
    pub(crate) pool: DeadPool<AsyncPgConnection>,
    state: Mutex<Standing>,
}

#[derive(Clone, Copy, Debug)]
struct Standing {
    state: ReplicaState,
    replayed: Option<WritePosition>,
    lag: Option<Duration>,
}

#[derive(QueryableByName)]
struct Lsn {
    #[diesel(sql_type = Nullable<Text>)]
    lsn: Option<String>,
}

impl Replicas {
    pub(crate) fn new(
        members: Vec<(String, DeadPool<AsyncPgConnection>)>,
        positions: Arc<dyn WritePositions>,
        max_lag: Duration,
    ) -> Self {
        Self {
            members: members
                .into_iter()
                .map(|(name, pool)| Member {
                    name,
                    pool,
                    // Down until the first poll has seen it answer.
                    state: Mutex::new(Standing {
                        state: ReplicaState::Down,
                        replayed: None,
                        lag: None,
                    }),
                })
                .collect(),
            positions,
            max_lag,
            next: AtomicUsize::new(0),
            reads_on_primary: AtomicU64::new(0),
            reads_on_replicas: AtomicU64::new(0),
            rotation_changes: AtomicU64::new(0),
        }
    }

    /// The replica a read `from` may use, if any (round robin among the eligible ones);
    /// `None`: the primary.
    pub(crate) fn for_read(&self, from: ReadFrom) -> Option<&Member> {
        let floor = match from {
            ReadFrom::Primary => return None,
            ReadFrom::AnyReplica => None,
            ReadFrom::ReplicaAfter(position) => Some(position),
        };
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        (0..self.members.len())
            .map(|offset| &self.members[(start + offset) % self.members.len()])
            .find(|member| member.serves(floor))
    }

    pub(crate) fn served_by_primary(&self) {
        self.reads_on_primary.fetch_add(1, Ordering::Relaxed);
    }

    /// What `member` answered to a read: kept when it succeeded; otherwise `None`, and the
    /// read runs again on the primary. Reads change nothing, so running one twice is safe, and
    /// a replica can fail a read the primary answers: unreachable (it then leaves the
    /// rotation until the monitor sees it answer) or, on a hot standby, cancelled by a
    /// conflict with the replay of the primary's log.
    pub(crate) fn answered<T>(&self, member: &Member, outcome: Result<T, DbError>) -> Option<T> {
        match outcome {
            Ok(answer) => {
                self.reads_on_replicas.fetch_add(1, Ordering::Relaxed);
                return Some(answer);
            }
            Err(error) if error.is_unavailable() => {
                self.change(member, ReplicaState::Down, None, None, Some(&error));
            }
            Err(error) => tracing::warn!(
                replica = %member.name, error = %error,
                "a read failed on a replica: running it on the primary"
            ),
        }
        self.served_by_primary();
        None
    }

    /// Remembers the primary's current log position for `key`, after its write committed.
    pub(crate) async fn remember_write(&self, key: &KeyPrefix, conn: &mut AsyncPgConnection) {
        match current_position(conn).await {
            Ok(position) => self.positions.remember(key, position).await,
            // The key's next reads may then see an older state for up to the replicas' lag.
            Err(error) => tracing::warn!(
                error = %error,
                "could not read the primary's log position after a write"
            ),
        }
    }

    pub(crate) fn stats(&self) -> ReplicaStats {
        ReplicaStats {
            replicas: self
                .members
                .iter()
                .map(|member| {
                    let standing = member.standing();
                    ReplicaStatus {
                        name: member.name.clone(),
                        state: standing.state,
                        lag_ms: standing
                            .lag
                            .map(|lag| u64::try_from(lag.as_millis()).unwrap_or(u64::MAX)),
                    }
                })
                .collect(),
            // Spelled out: diesel's `RunQueryDsl::load` is in scope too.
            reads_on_primary: AtomicU64::load(&self.reads_on_primary, Ordering::Relaxed),
            reads_on_replicas: AtomicU64::load(&self.reads_on_replicas, Ordering::Relaxed),
            rotation_changes: AtomicU64::load(&self.rotation_changes, Ordering::Relaxed),
        }
    }

    pub(crate) fn members(&self) -> &[Member] {
        &self.members
    }

    fn change(
        &self,
        member: &Member,
        state: ReplicaState,
        replayed: Option<WritePosition>,
        lag: Option<Duration>,
        cause: Option<&DbError>,
    ) {
        let mut standing = member
            .state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        let before = standing.state;
        *standing = Standing {
            state,
            replayed: replayed
                .or(standing.replayed)
                .filter(|_| state != ReplicaState::Down),
            lag,
        };
        drop(standing);
        if before != state {
            self.rotation_changes.fetch_add(1, Ordering::Relaxed);
            let lag_ms = lag.map(|lag| lag.as_millis());
            match (state, cause) {
                (ReplicaState::InRotation, _) => tracing::info!(
                    replica = %member.name, from = before.as_str(), lag_ms,
                    "replica in rotation"
                ),
                (_, Some(cause)) => tracing::warn!(
                    replica = %member.name, from = before.as_str(), to = state.as_str(),
                    cause = %cause, "replica out of rotation"
                ),
                (_, None) => tracing::warn!(
                    replica = %member.name, from = before.as_str(), to = state.as_str(), lag_ms,
                    "replica out of rotation"
                ),
            }
        }
    }
}

impl Member {
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn standing_state(&self) -> ReplicaState {
        self.standing().state
    }

    fn standing(&self) -> Standing {
        *self
            .state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    fn serves(&self, floor: Option<WritePosition>) -> bool {
        let standing = self.standing();
        standing.state == ReplicaState::InRotation
            && floor.is_none_or(|floor| standing.replayed.is_some_and(|at| at >= floor))
    }

    /// A connection for one read, within [`REPLICA_WAIT`].
    pub(crate) async fn checkout(
        &self,
    ) -> Result<diesel_async::pooled_connection::deadpool::Object<AsyncPgConnection>, DbError> {
        checkout(self.pool.get(), REPLICA_WAIT).await
    }
}

/// Polls the primary and the replicas until `replicas` is dropped.
pub(crate) fn spawn_monitor(replicas: Weak<Replicas>, primary: DeadPool<AsyncPgConnection>) {
    tokio::spawn(async move {
        // (when seen, position) of the primary, oldest first, over the last `max_lag` and more.
        let mut history: VecDeque<(Instant, WritePosition)> = VecDeque::new();
        loop {
            let Some(replicas) = replicas.upgrade() else {
                return;
            };
            poll(&replicas, &primary, &mut history).await;
            drop(replicas);
            tokio::time::sleep(POLL).await;
        }
    });
}

async fn poll(
    replicas: &Replicas,
    primary: &DeadPool<AsyncPgConnection>,
    history: &mut VecDeque<(Instant, WritePosition)>,
) {
    let now = Instant::now();
    match position_of(primary, CURRENT).await {
        Ok(position) => {
            if history.back().is_none_or(|(_, last)| *last < position) {
                history.push_back((now, position));
            }
        }
        // Without the primary's position the lag is unknown: keep the standings as they are.
        Err(_) => return,
    }
    let keep = replicas.max_lag * 4 + POLL * 10;
    while history
        .front()
        .is_some_and(|(seen, _)| now.duration_since(*seen) > keep)
        && history.len() > 1
    {
        history.pop_front();
    }
    for member in &replicas.members {
        match position_of(&member.pool, REPLAYED).await {
            Ok(replayed) => {
                // The primary first wrote past `replayed` at the oldest sample beyond it.
                let lag = history
                    .iter()
                    .find(|(_, position)| *position > replayed)
                    .map_or(Duration::ZERO, |(seen, _)| now.duration_since(*seen));
                let state = if lag > replicas.max_lag {
                    ReplicaState::Lagging
                } else {
                    ReplicaState::InRotation
                };
                replicas.change(member, state, Some(replayed), Some(lag), None);
            }
            Err(error) => replicas.change(member, ReplicaState::Down, None, None, Some(&error)),
        }
    }
}

/// The primary's log position now.
const CURRENT: &str = "SELECT pg_current_wal_lsn()::text AS lsn";
/// How far a replica has replayed the primary's log.
const REPLAYED: &str = "SELECT pg_last_wal_replay_lsn()::text AS lsn";

/// One of the positions above, from a connection of `pool`, within [`REPLICA_WAIT`].
async fn position_of(
    pool: &DeadPool<AsyncPgConnection>,
    sql: &'static str,
) -> Result<WritePosition, DbError> {
    let attempt = async {
        let mut conn = checkout(pool.get(), REPLICA_WAIT).await?;
        lsn_of(&mut conn, sql).await
    };
    tokio::time::timeout(REPLICA_WAIT, attempt)
        .await
        .unwrap_or(Err(DbError::PoolTimeout(REPLICA_WAIT)))
}

async fn current_position(conn: &mut AsyncPgConnection) -> Result<WritePosition, DbError> {
    lsn_of(conn, CURRENT).await
}

async fn lsn_of(conn: &mut AsyncPgConnection, sql: &'static str) -> Result<WritePosition, DbError> {
    let row: Lsn = diesel::sql_query(sql).get_result(conn).await?;
    row.lsn
        .as_deref()
        .and_then(parse_lsn)
        .ok_or_else(|| DbError::Invariant(format!("`{sql}` gave no position (not a replica?)")))
}

/// PostgreSQL's `16/B374D848`: two hexadecimal halves of a 64-bit position.
fn parse_lsn(text: &str) -> Option<WritePosition> {
    let (high, low) = text.split_once('/')?;
    let high = u64::from_str_radix(high, 16).ok()?;
    let low = u64::from_str_radix(low, 16).ok()?;
    (high <= u64::from(u32::MAX) && low <= u64::from(u32::MAX))
        .then_some(WritePosition((high << 32) | low))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_read_as_postgresql_writes_them() {
        assert_eq!(parse_lsn("0/0"), Some(WritePosition(0)));
        assert_eq!(
            parse_lsn("16/B374D848"),
            Some(WritePosition((0x16 << 32) | 0xB374_D848))
        );
        assert!(parse_lsn("1/0") > parse_lsn("0/FFFFFFFF"));
        for bad in ["", "16", "x/1", "1/", "100000000/0"] {
            assert_eq!(parse_lsn(bad), None, "{bad}");
        }
    }
}
