//! SQLite's first attempts without a queue row: the turn that reads a new event claims its
//! newest delivery of each (endpoint, resource) pair straight from the log, and the delivery's
//! row is written once, with the attempt's outcome, by the turn that records it. A pair that
//! already waits (a pending row: a retry, an event queued behind an attempt in flight), that
//! this instance holds, whose endpoint is disabled or at its bound goes the queue's way: a
//! pending row, claimed from the heads as before. So a delivery that succeeds at its first
//! attempt costs SQLite's one writer its two rows (the delivery, the attempt) rather than
//! five writes (the row queued, its claim taken and released, its status moved, the attempt):
//! docs/performance-log.md, "Webhooks: SQLite's first attempts without a queue row".
//!
//! SQLite has one delivering instance, whose dispatcher holds its pairs in memory
//! (`ClaimRoom::held`): the claim of a first attempt is that, and no `webhook_inflight` row.
//! What the lane claimed and has not recorded lives in the process ([`FastLane`]); the stored
//! cursor (`webhook_fan_out.through_seq`) stays behind the oldest of those events, so after a
//! crash the next run reads them again. Their deliveries that the dead run recorded, or
//! queued, are found by their ids (`recovered_through`), and only the attempts in flight at
//! the crash are made again.

use std::collections::{HashMap, HashSet};

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text};
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::{DeliveryId, EventId, WebhookEndpointId};
use shop_domain::webhook::{DeliveryLine, DeliveryStatus, EventType};
use shop_ports::port::{ClaimRoom, ClaimedDelivery, DeliveryQuery, DueWork};

use super::claim::{EndpointTarget, LoadsTargets, Pending, claimed_delivery};
use super::{pairs_by_endpoint, stored_endpoint_id};
use crate::database::{SqliteOn, SqliteRunner};
use crate::error::DbError;
use crate::schema::{webhook_deliveries, webhook_endpoints, webhook_events};
use crate::sql::kept_prepared::KeptPrepared;
use crate::webhooks::deliveries::delivery_id;

/// Events read from the log per turn: an import's thousands are taken a batch at a time, and
/// the loop turns again at once while some are left (`Turn::contended`).
const EVENTS_PER_TURN: i64 = 1_000;

/// Rows a multi-row `INSERT` writes per statement, within SQLite's bound of variables.
const ROWS_PER_INSERT: usize = 1_000;

/// A first attempt claimed from the log, whose delivery has no row yet: what its row needs.
#[derive(Clone, Debug)]
pub(crate) struct Unqueued {
    pub(crate) seq: i64,
    pub(crate) shop_id: String,
    pub(crate) endpoint_id: String,
    pub(crate) resource: String,
    pub(crate) created_at_ms: i64,
    /// What the endpoint's list of deliveries shows of it while it is in flight.
    event_id: EventId,
    event_type: EventType,
}

/// This process's side of the lane (SQLite; PostgreSQL never uses it).
#[derive(Debug, Default)]
pub(crate) struct FastLane {
    /// How far the turns have read the log; `None` until this run's first turn reads the
    /// stored cursor.
    read_through: Option<i64>,
    /// The last event a previous run may have queued or attempted deliveries of.
    recovered_through: i64,
    /// The first attempts claimed and not recorded yet, by delivery id.
    unqueued: HashMap<String, Unqueued>,
}

impl FastLane {
    /// A new run's lane: the stored cursor is read again at the next turn.
    pub(crate) fn restart(&mut self) {
        *self = Self::default();
    }

    /// What a turn reads of the lane; the turn returns a [`LaneMove`] that is applied once
    /// its transaction committed.
    pub(crate) fn snapshot(&self) -> LaneSnapshot {
        LaneSnapshot {
            read_through: self.read_through,
            recovered_through: self.recovered_through,
            unqueued: self.unqueued.clone(),
        }
    }

    /// The endpoint's first attempts in flight, as its list of deliveries shows them
    /// (pending, as their rows would be): those of `query`'s page but for its limit.
    pub(crate) fn in_flight_lines(
        &self,
        endpoint: &WebhookEndpointId,
        query: &DeliveryQuery,
    ) -> Vec<DeliveryLine> {
        if query
            .status
            .is_some_and(|wanted| wanted != DeliveryStatus::Pending)
        {
            return Vec::new();
        }
        let mut lines = Vec::new();
        for (id, unqueued) in &self.unqueued {
            if unqueued.endpoint_id != endpoint.as_str() {
                continue;
            }
            let Ok(id) = DeliveryId::parse(id.as_str()) else {
                continue;
            };
            let at = Timestamp::from_millis(unqueued.created_at_ms);
            let line = DeliveryLine {
                id,
                event_id: unqueued.event_id.clone(),
                event_type: unqueued.event_type,
                attempt: None,
                status: DeliveryStatus::Pending,
                response_status: None,
                duration_ms: None,
                error: None,
                created_at: at,
                next_attempt_at: Some(at),
            };
            let in_page = query.before.as_ref().is_none_or(|(before, key)| {
                (at.millis(), line.row_key().as_str()) < (before.millis(), key.as_str())
            });
            if in_page {
                lines.push(line);
            }
        }
        lines
    }

    pub(crate) fn apply(&mut self, moved: LaneMove) {
        for id in &moved.recorded {
            self.unqueued.remove(id);
        }
        self.unqueued.extend(moved.claimed);
        if let Some((read_through, recovered_through)) = moved.read {
            self.read_through = Some(read_through);
            self.recovered_through = recovered_through;
        }
    }
}

/// The lane as a turn began.
#[derive(Clone, Debug, Default)]
pub(crate) struct LaneSnapshot {
    pub(crate) read_through: Option<i64>,
    pub(crate) recovered_through: i64,
    pub(crate) unqueued: HashMap<String, Unqueued>,
}

/// What a committed turn changes in the lane.
#[derive(Debug, Default)]
pub(crate) struct LaneMove {
    /// The delivery ids of the first attempts the turn recorded (or dropped: their endpoint
    /// was deleted).
    pub(crate) recorded: Vec<String>,
    pub(crate) claimed: Vec<(String, Unqueued)>,
    /// `(read_through, recovered_through)` once the turn read the log.
    pub(crate) read: Option<(i64, i64)>,
}

/// What a turn takes on of the log's new events, read before it writes anything: the first
/// attempts it claims, and the rows it queues.
#[derive(Default)]
pub(crate) struct LanePlan {
    pub(crate) claimed: Vec<ClaimedDelivery>,
    /// The claimed attempts as the lane keeps them, by delivery id.
    pub(crate) unqueued: Vec<(String, Unqueued)>,
    pub(crate) rows: Vec<QueueRow>,
    /// `(read_through, recovered_through)` once the log was read.
    pub(crate) read: Option<(i64, i64)>,
    /// Events are left past this turn's batch: the loop turns again at once.
    pub(crate) more: bool,
}

impl LanePlan {
    /// What the lane keeps of the plan once the turn's writes (if any) committed.
    pub(crate) fn lane_move(&self, recorded: Vec<String>) -> LaneMove {
        LaneMove {
            recorded,
            claimed: self.unqueued.clone(),
            read: self.read,
        }
    }
}

/// An event of the log with receivers, as the lane reads it.
#[derive(QueryableByName)]
struct LoggedRow {
    #[diesel(sql_type = BigInt)]
    seq: i64,
    #[diesel(sql_type = Text)]
    shop_id: String,
    #[diesel(sql_type = Text)]
    event_type: String,
    #[diesel(sql_type = Text)]
    resource: String,
    #[diesel(sql_type = Text)]
    receivers: String,
    #[diesel(sql_type = BigInt)]
    created_at_ms: i64,
}

#[derive(QueryableByName)]
struct Cursor {
    #[diesel(sql_type = BigInt)]
    through_seq: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    newest: Option<i64>,
}

/// One (endpoint, resource) pair's new events, oldest first.
struct PairEvents<'a> {
    endpoint: &'a str,
    events: Vec<&'a LoggedRow>,
}

/// A queue row the lane writes: pending (the queue's way) or superseded.
pub(crate) struct QueueRow {
    id: String,
    shop_id: String,
    endpoint_id: String,
    seq: i64,
    resource: String,
    status: DeliveryStatus,
    created_at_ms: i64,
}

impl QueueRow {
    fn of(event: &LoggedRow, endpoint: &str, status: DeliveryStatus) -> Self {
        QueueRow {
            id: delivery_id(event.seq, endpoint),
            shop_id: event.shop_id.clone(),
            endpoint_id: endpoint.to_owned(),
            seq: event.seq,
            resource: event.resource.clone(),
            status,
            created_at_ms: event.created_at_ms,
        }
    }
}

/// The lane's part of a turn, read outside its transaction (see the module's
/// documentation): the first attempts claimed within `room`, the rest to queue.
pub(crate) async fn plan_first_attempts<R: SqliteRunner>(
    conn: &mut SqliteOn<R>,
    snapshot: &LaneSnapshot,
    room: &ClaimRoom,
    now: Timestamp,
) -> Result<LanePlan, DbError> {
    let (read_through, recovered_through) = match snapshot.read_through {
        Some(read) => (read, snapshot.recovered_through),
        None => {
            let cursor: Cursor = diesel::sql_query(
                "SELECT f.through_seq, (SELECT max(seq) FROM webhook_events \
                 WHERE receivers IS NOT NULL) AS newest FROM webhook_fan_out f WHERE f.id = 1",
            )
            .get_result(&mut *conn)
            .await?;
            (
                cursor.through_seq,
                cursor.newest.unwrap_or(cursor.through_seq),
            )
        }
    };
    let events: Vec<LoggedRow> = KeptPrepared(
        diesel::sql_query(
            "SELECT seq, shop_id, type AS event_type, resource, receivers, created_at_ms \
             FROM webhook_events \
             WHERE receivers IS NOT NULL AND seq > ? ORDER BY seq LIMIT ?",
        )
        .bind::<BigInt, _>(read_through)
        .bind::<BigInt, _>(EVENTS_PER_TURN),
    )
    .load(&mut *conn)
    .await?;
    let mut plan = LanePlan {
        more: i64::try_from(events.len()).unwrap_or(i64::MAX) == EVENTS_PER_TURN,
        read: Some((
            events.last().map_or(read_through, |event| event.seq),
            recovered_through,
        )),
        ..LanePlan::default()
    };
    if events.is_empty() {
        return Ok(plan);
    }
    let pairs = pairs_of(&events);
    let endpoints: Vec<&str> = pairs
        .iter()
        .map(|(pair, _)| pair.endpoint)
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let targets: HashMap<String, EndpointTarget> = conn
        .load_targets(&endpoints)
        .await?
        .into_iter()
        .map(|target| (target.id.clone(), target))
        .collect();
    // An endpoint deleted since the event's commit gets nothing; a disabled one, its rows.
    let existing: HashSet<String> = webhook_endpoints::table
        .filter(webhook_endpoints::id.eq_any(&endpoints))
        .select(webhook_endpoints::id)
        .load::<String>(&mut *conn)
        .await?
        .into_iter()
        .collect();
    let waiting = waiting_pairs(conn, &pairs).await?;
    let done = queued_already(conn, &pairs, recovered_through).await?;
    let mut busy: HashMap<&str, usize> = room
        .in_flight
        .iter()
        .map(|(endpoint, n)| (endpoint.as_str(), *n))
        .collect();
    let mut free = room.total;
    let mut sending: Vec<(&LoggedRow, &str, &EndpointTarget)> = Vec::new();
    for (pair, resource) in &pairs {
        let Some((newest, older)) = pair.events.split_last() else {
            continue;
        };
        if !existing.contains(pair.endpoint) {
            continue;
        }
        let id = delivery_id(newest.seq, pair.endpoint);
        let claimable = free > 0
            && busy.get(pair.endpoint).copied().unwrap_or(0) < room.per_endpoint
            && !done.contains(&id)
            && !waiting.contains(&(pair.endpoint, resource.as_str()))
            && !room.held.contains(&DueWork {
                endpoint_id: stored_endpoint_id(pair.endpoint)?,
                resource: resource.clone(),
            });
        match targets.get(pair.endpoint) {
            Some(target) if claimable => {
                free -= 1;
                *busy.entry(pair.endpoint).or_default() += 1;
                sending.push((newest, pair.endpoint, target));
                plan.rows.extend(
                    older.iter().map(|event| {
                        QueueRow::of(event, pair.endpoint, DeliveryStatus::Superseded)
                    }),
                );
            }
            _ => plan.rows.extend(
                pair.events
                    .iter()
                    .map(|event| QueueRow::of(event, pair.endpoint, DeliveryStatus::Pending)),
            ),
        }
    }
    (plan.claimed, plan.unqueued) = claim_from_log(conn, &sending, now).await?;
    Ok(plan)
}

/// The pairs of `pairs` with a pending row: their new events queue behind it.
async fn waiting_pairs<'a, R: SqliteRunner>(
    conn: &mut SqliteOn<R>,
    pairs: &'a [(PairEvents<'a>, String)],
) -> Result<HashSet<(&'a str, &'a str)>, DbError> {
    let mut waiting = HashSet::new();
    let grouped = pairs_by_endpoint(
        pairs
            .iter()
            .map(|(pair, resource)| (pair.endpoint, resource.as_str())),
    );
    for (endpoint, resources) in grouped {
        let found: Vec<String> = webhook_deliveries::table
            .filter(super::is_pending())
            .filter(webhook_deliveries::endpoint_id.eq(endpoint))
            .filter(webhook_deliveries::resource.eq_any(&resources))
            .select(webhook_deliveries::resource)
            .distinct()
            .load(&mut *conn)
            .await?;
        for resource in found {
            if let Some(known) = resources.iter().find(|r| **r == resource) {
                waiting.insert((endpoint, *known));
            }
        }
    }
    Ok(waiting)
}

/// Of the pairs' newest deliveries, those a previous run queued or recorded already:
/// only events up to `recovered_through` can have one.
async fn queued_already<R: SqliteRunner>(
    conn: &mut SqliteOn<R>,
    pairs: &[(PairEvents<'_>, String)],
    recovered_through: i64,
) -> Result<HashSet<String>, DbError> {
    let ids: Vec<String> = pairs
        .iter()
        .filter_map(|(pair, _)| pair.events.last().map(|event| (pair.endpoint, event.seq)))
        .filter(|(_, seq)| *seq <= recovered_through)
        .map(|(endpoint, seq)| delivery_id(seq, endpoint))
        .collect();
    if ids.is_empty() {
        return Ok(HashSet::new());
    }
    Ok(webhook_deliveries::table
        .filter(webhook_deliveries::id.eq_any(&ids))
        .select(webhook_deliveries::id)
        .load::<String>(&mut *conn)
        .await?
        .into_iter()
        .collect())
}

/// Writes the queue's rows of the events not claimed (pending, or superseded by a newer
/// event claimed), in the turn's transaction; a row already there (queued by a run that
/// died, or a recovery) is left as it is.
pub(crate) async fn insert_queue_rows<R: SqliteRunner>(
    conn: &mut SqliteOn<R>,
    rows: &[QueueRow],
    now: Timestamp,
) -> Result<(), DbError> {
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        let mut insert = diesel::sql_query(format!(
            "INSERT INTO webhook_deliveries (id, shop_id, endpoint_id, event_seq, resource, \
             status, attempts, next_attempt_at_ms, created_at_ms, updated_at_ms) VALUES {} \
             ON CONFLICT (id) DO NOTHING",
            crate::sql::values_rows::placeholders(chunk.len(), 10)
        ))
        .into_boxed::<diesel::sqlite::Sqlite>();
        for row in chunk {
            let pending = row.status == DeliveryStatus::Pending;
            insert = insert
                .bind::<Text, _>(row.id.clone())
                .bind::<Text, _>(row.shop_id.clone())
                .bind::<Text, _>(row.endpoint_id.clone())
                .bind::<BigInt, _>(row.seq)
                .bind::<Text, _>(row.resource.clone())
                .bind::<Text, _>(row.status.as_str())
                .bind::<diesel::sql_types::Integer, _>(0)
                .bind::<Nullable<BigInt>, _>(pending.then_some(row.created_at_ms))
                .bind::<BigInt, _>(row.created_at_ms)
                .bind::<BigInt, _>(if pending {
                    row.created_at_ms
                } else {
                    now.millis()
                });
        }
        insert.execute(&mut *conn).await?;
    }
    Ok(())
}

/// The claimed first attempts, their events' bodies read, and what the lane keeps of them.
async fn claim_from_log<R: SqliteRunner>(
    conn: &mut SqliteOn<R>,
    sending: &[(&LoggedRow, &str, &EndpointTarget)],
    now: Timestamp,
) -> Result<(Vec<ClaimedDelivery>, Vec<(String, Unqueued)>), DbError> {
    if sending.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let mut unqueued = Vec::with_capacity(sending.len());
    let seqs: Vec<i64> = sending.iter().map(|(event, _, _)| event.seq).collect();
    let bodies: HashMap<i64, (String, String)> = webhook_events::table
        .filter(webhook_events::seq.eq_any(&seqs))
        .select((
            webhook_events::seq,
            webhook_events::id,
            webhook_events::body,
        ))
        .load::<(i64, String, String)>(&mut *conn)
        .await?
        .into_iter()
        .map(|(seq, id, body)| (seq, (id, body)))
        .collect();
    let mut claimed = Vec::with_capacity(sending.len());
    for (event, endpoint, target) in sending {
        let (event_id, body) = bodies
            .get(&event.seq)
            .cloned()
            .ok_or_else(|| DbError::Invariant(format!("event {} is gone", event.seq)))?;
        let corrupt = |what: &str| {
            DbError::corrupt("webhook_events", &event.seq.to_string(), what.to_owned())
        };
        let stored_id = EventId::parse(event_id.as_str()).map_err(|_| corrupt("id"))?;
        let event_type = event
            .event_type
            .parse::<EventType>()
            .map_err(|_| corrupt("type"))?;
        let id = delivery_id(event.seq, endpoint);
        let row = Pending {
            id: id.clone(),
            endpoint_id: (*endpoint).to_owned(),
            resource: event.resource.clone(),
            event_seq: event.seq,
            attempts: 0,
        };
        claimed.push(claimed_delivery(row, event_id, body, target, now)?);
        unqueued.push((
            id,
            Unqueued {
                seq: event.seq,
                shop_id: event.shop_id.clone(),
                endpoint_id: (*endpoint).to_owned(),
                resource: event.resource.clone(),
                created_at_ms: event.created_at_ms,
                event_id: stored_id,
                event_type,
            },
        ));
    }
    Ok((claimed, unqueued))
}

/// Moves the stored cursor to what a run starting now must read again: the events
/// before the oldest first attempt not recorded, or all that was read.
pub(crate) async fn store_lane_cursor<R: SqliteRunner>(
    conn: &mut SqliteOn<R>,
    snapshot: &LaneSnapshot,
    lane: &LaneMove,
) -> Result<(), DbError> {
    let Some(read_through) = lane.read.map(|(read, _)| read).or(snapshot.read_through) else {
        return Ok(());
    };
    let recorded: HashSet<&str> = lane.recorded.iter().map(String::as_str).collect();
    let oldest_unrecorded = snapshot
        .unqueued
        .iter()
        .filter(|(id, _)| !recorded.contains(id.as_str()))
        .map(|(_, unqueued)| unqueued.seq)
        .chain(lane.claimed.iter().map(|(_, unqueued)| unqueued.seq))
        .min();
    let through = oldest_unrecorded.map_or(read_through, |seq| seq - 1);
    KeptPrepared(
        diesel::sql_query(
            "UPDATE webhook_fan_out SET through_seq = ? WHERE id = 1 AND through_seq <> ?",
        )
        .bind::<BigInt, _>(through)
        .bind::<BigInt, _>(through),
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The events grouped by (endpoint, resource), each pair's events oldest first, the pairs in
/// the order of their first event.
fn pairs_of(events: &[LoggedRow]) -> Vec<(PairEvents<'_>, String)> {
    let mut pairs: Vec<(PairEvents<'_>, String)> = Vec::new();
    let mut index: HashMap<(&str, &str), usize> = HashMap::new();
    for event in events {
        for endpoint in event.receivers.split(',').filter(|id| !id.is_empty()) {
            let key = (endpoint, event.resource.as_str());
            match index.get(&key) {
                Some(at) => pairs[*at].0.events.push(event),
                None => {
                    index.insert(key, pairs.len());
                    pairs.push((
                        PairEvents {
                            endpoint,
                            events: vec![event],
                        },
                        event.resource.clone(),
                    ));
                }
            }
        }
    }
    pairs
}
