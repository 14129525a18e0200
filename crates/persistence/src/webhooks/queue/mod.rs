//! The delivery queue (`DeliveryQueue`): what attempts change (`record.rs`), what is due,
//! endpoint by endpoint (`head.rs`), the claims that keep one attempt in flight per endpoint
//! and resource across every instance (`claim.rs`), and on SQLite the new events' deliveries,
//! their first attempts claimed straight from the event log (`fan_out.rs`, `fast_lane.rs`). A
//! turn of the workers' loop reads what it takes on first, then does its writes for the batch
//! in one transaction, if it has any.
//!
//! The pending deliveries' partial index (`status = 'pending'`) is only used when the query
//! names that status as a literal, which a bound parameter is not ([`is_pending`]).

mod claim;
mod fan_out;
pub(crate) mod fast_lane;
mod head;
mod record;

use std::collections::BTreeMap;
use std::time::Duration;

use async_trait::async_trait;
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::Bool;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::WebhookEndpointId;
use shop_ports::StoreError;
use shop_ports::port::{AttemptRecord, ClaimRoom, ClaimedDelivery, DeliveryQueue, DueWork, Turn};

use crate::database::{Database, Pool, in_transaction, with_conn};
use crate::error::DbError;
use crate::schema::{webhook_attempts, webhook_deliveries, webhook_events, webhook_inflight};
use claim::ClaimQueries;
use fan_out::DeferredFanOut;
use fast_lane::{LaneMove, LanePlan, LaneSnapshot};
use head::{NextRetry, PendingEndpoints, ReadsQueueHeads};
use record::RecordQueries;

/// `status = 'pending'`, written as a literal so that the planners (SQLite's and a generic
/// plan of PostgreSQL's) can use the partial index of pending deliveries.
fn is_pending() -> diesel::expression::SqlLiteral<Bool> {
    sql::<Bool>("webhook_deliveries.status = 'pending'")
}

/// Pairs grouped by endpoint: one statement per endpoint where a query needs the pairs.
fn pairs_by_endpoint<'a>(
    pairs: impl Iterator<Item = (&'a str, &'a str)>,
) -> BTreeMap<&'a str, Vec<&'a str>> {
    let mut grouped: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (endpoint, resource) in pairs {
        grouped.entry(endpoint).or_default().push(resource);
    }
    grouped
}

/// `on_queue_connection!(db, |conn| body)`: `body` on the delivery workers' connection: on
/// PostgreSQL their own (`Database::queue_pool`), on SQLite one of the writers' pool, outside
/// the write turn (a read needs no lock).
macro_rules! on_queue_connection {
    ($db:expr, |$conn:ident| $body:expr) => {{
        let db: &Database = $db;
        match (&db.pool, &db.queue_pool) {
            (Pool::Postgres(_), Some(queue)) => match db.acquire(queue.get()).await {
                Ok(mut object) => {
                    let $conn: &mut diesel_async::AsyncPgConnection = &mut object;
                    $body
                }
                Err(error) => Err(error),
            },
            _ => with_conn!(db, |$conn| $body),
        }
    }};
}

/// `in_queue_transaction!(db, |conn| body)`: like [`in_transaction!`], on the delivery
/// workers' connection on PostgreSQL. On SQLite with the workers' turn
/// (`Database::queue_write_turn`), its statements on the calling thread as an API write's
/// (`database/write_runner.rs`): while a turn holds SQLite's one writer every other writer
/// waits, and the hop to a blocking thread and back for each of its statements (a dozen or
/// so a turn) made most of the time it held it. Its commit does not wait for the disk
/// (`CommitSync::WithTheNextFull`): what a power cut may take from a turn is attempts sent
/// again, the at-least-once delivery's duplicates, never a change of the shop's.
macro_rules! in_queue_transaction {
    ($db:expr, |$conn:ident| $body:expr) => {{
        let db: &Database = $db;
        match (&db.pool, &db.queue_pool) {
            (Pool::Postgres(_), Some(queue)) => match db.acquire(queue.get()).await {
                Ok(mut object) => {
                    diesel_async::AsyncConnection::transaction(
                        &mut *object,
                        async move |$conn: &mut diesel_async::AsyncPgConnection| $body,
                    )
                    .await
                }
                Err(error) => Err(error),
            },
            _ => in_transaction!(db, turn: queue_write_turn, sync: WithTheNextFull, |$conn| {
                $crate::database::write_runner::between_begin_and_commit(async move { $body })
                    .await
            }),
        }
    }};
}

/// When each part of a turn ended, from its start (`RUST_LOG=shop_persistence=debug`): where a
/// slow queue spends its time. A turn with nothing to record reads the heads before its
/// transaction begins.
#[derive(Default)]
struct TurnPhases {
    began: Duration,
    recorded: Duration,
    read: Duration,
    claimed: Duration,
}

impl TurnPhases {
    fn trace(&self, recorded: usize, claimed: usize, total: Duration) {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        tracing::debug!(
            recorded,
            claimed,
            read_ms = ms(self.read),
            began_ms = ms(self.began),
            recorded_ms = ms(self.recorded),
            claimed_ms = ms(self.claimed),
            committed_ms = ms(total),
            "webhooks: a turn"
        );
    }
}

/// An (endpoint, resource) pair as a raw statement returns it (the heads, the claims taken).
#[derive(QueryableByName)]
struct PairRow {
    #[diesel(sql_type = diesel::sql_types::Text)]
    endpoint_id: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    resource: String,
}

fn stored_endpoint_id(id: &str) -> Result<WebhookEndpointId, DbError> {
    WebhookEndpointId::parse(id)
        .map_err(|_| DbError::Invariant("a stored endpoint id is not an id".into()))
}

/// How many pending rows of an endpoint's head are read per pair it may take: a burst of
/// changes to one resource is several rows of one pair.
const ROWS_PER_PAIR: usize = 4;

/// What `room` selects of the heads of the endpoints it has room for.
async fn due_work<C>(
    conn: &mut C,
    room: &ClaimRoom,
    now: Timestamp,
) -> Result<Vec<DueWork>, DbError>
where
    C: ReadsQueueHeads + Send,
{
    let full: Vec<String> = room
        .full_endpoints()
        .map(|endpoint| endpoint.as_str().to_owned())
        .collect();
    let rows = i64::try_from(room.per_endpoint.saturating_mul(ROWS_PER_PAIR)).unwrap_or(i64::MAX);
    let mut due = Vec::new();
    for pair in conn.queue_heads(&full, now, rows).await? {
        due.push(DueWork {
            endpoint_id: stored_endpoint_id(&pair.endpoint_id)?,
            resource: pair.resource,
        });
    }
    Ok(due)
}

/// The earliest retry after `now` of the enabled endpoints' pending deliveries.
async fn earliest_retry<C>(conn: &mut C, now: Timestamp) -> Result<Option<i64>, DbError>
where
    C: PendingEndpoints + NextRetry + Send,
{
    let mut earliest: Option<i64> = None;
    for endpoint in conn.pending_endpoints().await? {
        if let Some(at) = conn.next_retry(&endpoint, now).await? {
            earliest = Some(earliest.map_or(at, |e| e.min(at)));
        }
    }
    Ok(earliest)
}

/// `room` less what the log's first attempts took in this turn: their endpoints' places and
/// their pairs.
fn room_after_first_attempts(room: &ClaimRoom, first: &[ClaimedDelivery]) -> ClaimRoom {
    let mut left = room.clone();
    left.total = left.total.saturating_sub(first.len());
    for claim in first {
        *left.in_flight.entry(claim.endpoint_id.clone()).or_default() += 1;
        left.held.insert(claim.pair());
    }
    left
}

/// The room the log's first attempts may take when `ended` is recorded by the same turn,
/// after they are read: a pair whose attempt failed gets a pending row then, which a newer
/// event of it must queue behind (to supersede it), never pass. `None`: `room` as it is.
fn room_for_the_log(room: &ClaimRoom, ended: &[AttemptRecord]) -> Option<ClaimRoom> {
    let mut failed = ended
        .iter()
        .filter(|attempt| attempt.next != shop_ports::port::DeliveryNext::Succeeded)
        .peekable();
    failed.peek()?;
    let mut narrower = room.clone();
    narrower.held.extend(failed.map(AttemptRecord::pair));
    Some(narrower)
}

impl Database {
    /// The lane of first attempts as this turn begins (SQLite's; empty on PostgreSQL).
    fn lane_snapshot(&self) -> LaneSnapshot {
        match self.pool {
            Pool::Sqlite(_) => self.lane().snapshot(),
            Pool::Postgres(_) => LaneSnapshot::default(),
        }
    }

    /// SQLite's first attempts in flight to `endpoint`, as its list of deliveries shows them.
    pub(crate) fn in_flight_lines(
        &self,
        endpoint: &WebhookEndpointId,
        query: &shop_ports::port::DeliveryQuery,
    ) -> Vec<shop_domain::webhook::DeliveryLine> {
        match self.pool {
            Pool::Sqlite(_) => self.lane().in_flight_lines(endpoint, query),
            Pool::Postgres(_) => Vec::new(),
        }
    }

    /// Applies what a turn changed in the lane, once its writes (if any) committed.
    fn move_lane(&self, moved: LaneMove) {
        if let Pool::Sqlite(_) = self.pool {
            self.lane().apply(moved);
        }
    }

    fn lane(&self) -> std::sync::MutexGuard<'_, fast_lane::FastLane> {
        // A turn that panicked left nothing half-moved: the lane moves after a commit only.
        self.fast_lane
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[async_trait]
impl DeliveryQueue for Database {
    async fn turn(
        &self,
        ended: &[AttemptRecord],
        room: &ClaimRoom,
        instance: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<Turn, StoreError> {
        let began = std::time::Instant::now();
        let mut phases = TurnPhases::default();
        if ended.is_empty() && room.is_empty() {
            return Ok(Turn::default());
        }
        // Reads first, outside any transaction: the log's new events (SQLite), then, with
        // nothing to record, the heads. A transaction is begun only to write something, so a
        // turn that only claims first attempts from the log, or finds nothing, never takes
        // SQLite's one writer from the API's writes.
        let snapshot = self.lane_snapshot();
        let lane_before = &snapshot;
        let retried = room_for_the_log(room, ended);
        let (plan, left, due) = on_queue_connection!(self, |conn| {
            let plan = if room.is_empty() {
                LanePlan::default()
            } else {
                conn.plan_fan_out(lane_before, retried.as_ref().unwrap_or(room), now)
                    .await?
            };
            let left = room_after_first_attempts(room, &plan.claimed);
            let due = if ended.is_empty() {
                Some(due_work(conn, &left, now).await?)
            } else {
                None
            };
            Ok::<_, DbError>((plan, left, due))
        })?;
        phases.read = began.elapsed();
        let mut read_first = None;
        if let Some(due) = due {
            let nothing_due = due.is_empty() && plan.claimed.is_empty() && !plan.more;
            let selected = left.select(due);
            if selected.is_empty() && plan.rows.is_empty() {
                let lane = plan.lane_move(Vec::new());
                self.move_lane(lane);
                return Ok(Turn {
                    claimed: plan.claimed,
                    nothing_due,
                    contended: plan.more,
                });
            }
            read_first = Some(selected);
        }
        // The first attempts from the log that this turn records, or drops (their endpoint
        // was deleted): recorded or not, they leave the lane.
        let recorded: Vec<String> = ended
            .iter()
            .map(|attempt| attempt.delivery_id.as_str())
            .filter(|id| snapshot.unqueued.contains_key(*id))
            .map(str::to_owned)
            .collect();
        let lane = plan.lane_move(recorded);
        let timing = &mut phases;
        let (lane_after, planned, left) = (&lane, &plan, &left);
        let turn: Result<Turn, DbError> = in_queue_transaction!(self, |conn| {
            timing.began = began.elapsed();
            if !ended.is_empty() {
                conn.record_batch(ended, instance, &lane_before.unqueued)
                    .await?;
            }
            conn.queue_rows(&planned.rows, now).await?;
            timing.recorded = began.elapsed();
            let mut turn = Turn {
                claimed: planned.claimed.clone(),
                contended: planned.more,
                ..Turn::default()
            };
            let selected = match &read_first {
                Some(selected) => selected.clone(),
                None if left.is_empty() => Vec::new(),
                None => {
                    let due = due_work(&mut *conn, left, now).await?;
                    timing.read = began.elapsed();
                    turn.nothing_due =
                        due.is_empty() && planned.claimed.is_empty() && !planned.more;
                    left.select(due)
                }
            };
            if !selected.is_empty() {
                let claimed = conn.claim_batch(&selected, instance, now, until).await?;
                turn.claimed.extend(claimed.deliveries);
                turn.contended |= claimed.contended;
            }
            conn.store_cursor(lane_before, lane_after).await?;
            timing.claimed = began.elapsed();
            Ok(turn)
        });
        if let Ok(turn) = &turn {
            self.move_lane(lane);
            phases.trace(ended.len(), turn.claimed.len(), began.elapsed());
        }
        Ok(turn?)
    }

    async fn release_orphaned_claims(&self) -> Result<u64, StoreError> {
        if let Pool::Postgres(_) = self.pool {
            return Ok(0);
        }
        let released = with_conn!(self, |conn| {
            diesel::delete(webhook_inflight::table).execute(conn).await
        })?;
        // The first attempts a previous run claimed from the log: the cursor it stored is
        // behind them, and this run reads them again.
        self.lane().restart();
        Ok(u64::try_from(released).unwrap_or(u64::MAX))
    }

    async fn next_due(&self, now: Timestamp) -> Result<Option<Timestamp>, StoreError> {
        // Endpoint by endpoint, as the heads are read: a seek each, whatever the backlog.
        let next = on_queue_connection!(self, |conn| earliest_retry(conn, now).await)?;
        Ok(next.map(Timestamp::from_millis))
    }

    async fn wait_for_events(&self, at_most: Duration) {
        let _ = tokio::time::timeout(at_most, self.events_wake.notified()).await;
    }

    async fn pause(&self, duration: Duration) {
        tokio::time::sleep(duration).await;
    }

    async fn prune(&self, before: Timestamp) -> Result<u64, StoreError> {
        let pruned: Result<usize, DbError> = in_transaction!(self, |conn| {
            let old_events = webhook_events::table
                .filter(webhook_events::created_at_ms.lt(before.millis()))
                .select(webhook_events::seq);
            let old_deliveries = webhook_deliveries::table
                .filter(webhook_deliveries::event_seq.eq_any(old_events))
                .select(webhook_deliveries::id);
            diesel::delete(
                webhook_attempts::table
                    .filter(webhook_attempts::delivery_id.eq_any(old_deliveries)),
            )
            .execute(&mut *conn)
            .await?;
            diesel::delete(
                webhook_deliveries::table.filter(webhook_deliveries::event_seq.eq_any(old_events)),
            )
            .execute(&mut *conn)
            .await?;
            // Claims left by an instance that died, of pairs with nothing pending any more
            // (any other is taken over when its pair falls due again: `claim.rs`).
            diesel::delete(
                webhook_inflight::table
                    .filter(webhook_inflight::claimed_until_ms.lt(before.millis())),
            )
            .execute(&mut *conn)
            .await?;
            Ok(diesel::delete(
                webhook_events::table.filter(webhook_events::created_at_ms.lt(before.millis())),
            )
            .execute(&mut *conn)
            .await?)
        });
        Ok(u64::try_from(pruned?).unwrap_or(u64::MAX))
    }
}

#[cfg(test)]
impl Database {
    /// The pairs a turn with room for everything would find due at `now`, each once, in the
    /// order it would take them; claims nothing, so the deliveries of new events are queued
    /// rather than claimed from the log (SQLite).
    pub(crate) async fn due_pairs(&self, now: Timestamp) -> Result<Vec<DueWork>, DbError> {
        let room = ClaimRoom {
            total: usize::MAX,
            per_endpoint: 64,
            ..ClaimRoom::default()
        };
        let reading = &room;
        let snapshot = self.lane_snapshot();
        let lane_before = &snapshot;
        let plan = on_queue_connection!(self, |conn| {
            conn.plan_fan_out(lane_before, &ClaimRoom::none(), now)
                .await
        })?;
        let lane = plan.lane_move(Vec::new());
        let (planned, lane_after) = (&plan, &lane);
        let due = in_queue_transaction!(self, |conn| {
            conn.queue_rows(&planned.rows, now).await?;
            conn.store_cursor(lane_before, lane_after).await?;
            due_work(conn, reading, now).await
        })?;
        self.move_lane(lane);
        Ok(room.select(due))
    }
}
