//! The deliveries the workers queue in their turn: those of the events committed since the
//! last turn, to the endpoints each event named at its commit (`webhooks/outbox.rs`), in one
//! `INSERT … SELECT` for the batch. A write inserts no row per endpoint: on PostgreSQL the
//! write's own `INSERT … SELECT` of its deliveries was the largest share of what two endpoints
//! cost each adjustment, and on SQLite's one writer every write paid its share
//! (docs/PERFORMANCE.md, "Webhooks").
//!
//! How far the workers have queued is a cursor (`webhook_fan_out`), which must never pass an
//! event that becomes visible later. SQLite numbers its events in commit order (one writer at
//! a time), so its cursor is the last `seq` queued. PostgreSQL's `seq` is drawn before the
//! commit, so its cursor is a snapshot, as PgQ's batches are: a turn queues the events of the
//! transactions its own snapshot sees and the cursor's did not (by `writer_xid`), then keeps
//! its snapshot. An event is queued by exactly one turn, the first whose snapshot sees its
//! commit, and a long transaction delays no other's events.

use diesel::OptionalExtension;
use diesel::dsl::sql;
use diesel::sql_types::{Bool, Text};
use diesel_async::RunQueryDsl;

use crate::error::DbError;
use crate::schema::{webhook_endpoints, webhook_events};
use crate::sql::kept_prepared::KeptPrepared;
use crate::webhooks::deliveries::fanned_out_deliveries;

pub(super) trait DeferredFanOut {
    /// Whether events committed since the last turn still wait for their deliveries.
    fn fan_out_behind(&mut self) -> impl Future<Output = Result<bool, DbError>> + Send;

    /// Queues those deliveries and moves the cursor past their events; runs in the turn's
    /// transaction.
    fn fan_out(&mut self) -> impl Future<Output = Result<(), DbError>> + Send;
}

#[derive(diesel::QueryableByName)]
struct Behind {
    #[diesel(sql_type = Bool)]
    behind: bool,
}

impl<R: crate::database::SqliteRunner> DeferredFanOut for crate::database::SqliteOn<R> {
    async fn fan_out_behind(&mut self) -> Result<bool, DbError> {
        // Only an event with receivers moves the cursor: a write to a shop without enabled
        // endpoints costs the workers one seek in the index of such events, never a write.
        let row: Behind = KeptPrepared(diesel::sql_query(
            "SELECT EXISTS (SELECT 1 FROM webhook_events \
                 WHERE receivers IS NOT NULL AND seq > f.through_seq) AS behind \
             FROM webhook_fan_out f WHERE f.id = 1",
        ))
        .get_result(self)
        .await?;
        Ok(row.behind)
    }

    async fn fan_out(&mut self) -> Result<(), DbError> {
        if !self.fan_out_behind().await? {
            return Ok(());
        }
        // Every event past the cursor in one statement: at most what the writes since the
        // last turn wrote (an import's transaction the most), streamed inside SQLite.
        KeptPrepared(fanned_out_deliveries!(
            on: webhook_endpoints::shop_id.eq(webhook_events::shop_id).and(sql::<Bool>(
                "instr(',' || webhook_events.receivers || ',', \
                 ',' || webhook_endpoints.id || ',') > 0"
            )),
            events: sql::<Bool>(
                "webhook_events.receivers IS NOT NULL AND webhook_events.seq > \
                 (SELECT through_seq FROM webhook_fan_out WHERE id = 1)"
            )
        ))
        .execute(&mut *self)
        .await?;
        KeptPrepared(diesel::sql_query(
            "UPDATE webhook_fan_out SET through_seq = \
             (SELECT max(seq) FROM webhook_events WHERE receivers IS NOT NULL) WHERE id = 1",
        ))
        .execute(self)
        .await?;
        Ok(())
    }
}

/// The snapshot the workers' last fan-out saw, and this turn's, as PostgreSQL writes them
/// (`xmin:xmax:xip,...`).
#[derive(diesel::QueryableByName)]
struct Cursor {
    #[diesel(sql_type = Text)]
    through: String,
    #[diesel(sql_type = Text)]
    now: String,
}

/// The statements that read `webhook_events` by `writer_xid` are planned at each call, never
/// kept prepared: a plan kept from when the table was small would scan all of it however
/// large it grows (docs/performance-log.md, "The API v2 writes: what the request did that its
/// ceiling did not").
impl DeferredFanOut for diesel_async::AsyncPgConnection {
    async fn fan_out_behind(&mut self) -> Result<bool, DbError> {
        let row: Behind = diesel::sql_query(
            "SELECT pg_snapshot_xmax(f.through) > pg_snapshot_xmax(pg_current_snapshot()) \
                 OR EXISTS (SELECT 1 FROM webhook_events e \
                   WHERE e.receivers IS NOT NULL \
                     AND e.writer_xid >= pg_snapshot_xmin(f.through) \
                     AND NOT pg_visible_in_snapshot(e.writer_xid, f.through)) AS behind \
             FROM webhook_fan_out f WHERE f.id = 1",
        )
        .get_result(self)
        .await?;
        Ok(row.behind)
    }

    async fn fan_out(&mut self) -> Result<(), DbError> {
        // Another instance's turn queuing now holds the cursor: it queues these events too,
        // and this turn goes on to claim. The statement's snapshot is the turn's `now`; the
        // cursor may be a newer one (a turn that committed after that snapshot was taken):
        // keeping `now` then only makes the next turn look at those events again, and a
        // delivery queued already is left as it is (the fan-out's `ON CONFLICT DO NOTHING`).
        // A cursor ahead of this cluster's transaction ids (a database restored into another
        // cluster) would hide every event until they caught up: the turn starts again from
        // the first one, on the same terms.
        let cursor: Option<Cursor> = KeptPrepared(diesel::sql_query(
            "SELECT CASE WHEN pg_snapshot_xmax(through) > pg_snapshot_xmax(pg_current_snapshot()) \
                 THEN '1:1:' ELSE CAST(through AS TEXT) END AS through, \
               CAST(pg_current_snapshot() AS TEXT) AS now \
             FROM webhook_fan_out WHERE id = 1 FOR UPDATE SKIP LOCKED",
        ))
        .get_result(&mut *self)
        .await
        .optional()?;
        let Some(Cursor { through, now }) = cursor else {
            return Ok(());
        };
        if now == through {
            return Ok(());
        }
        let visible_now_not_then = sql::<Bool>(
            "webhook_events.receivers IS NOT NULL \
             AND webhook_events.writer_xid >= pg_snapshot_xmin(CAST(",
        )
        .bind::<Text, _>(&through)
        .sql(" AS pg_snapshot)) AND webhook_events.writer_xid < pg_snapshot_xmax(CAST(")
        .bind::<Text, _>(&now)
        .sql(
            " AS pg_snapshot)) \
             AND NOT pg_visible_in_snapshot(webhook_events.writer_xid, CAST(",
        )
        .bind::<Text, _>(&through)
        .sql(" AS pg_snapshot)) AND pg_visible_in_snapshot(webhook_events.writer_xid, CAST(")
        .bind::<Text, _>(&now)
        .sql(" AS pg_snapshot))");
        fanned_out_deliveries!(
            on: webhook_endpoints::shop_id.eq(webhook_events::shop_id).and(sql::<Bool>(
                "webhook_endpoints.id = ANY (string_to_array(webhook_events.receivers, ','))"
            )),
            events: visible_now_not_then
        )
        .execute(&mut *self)
        .await?;
        KeptPrepared(
            diesel::sql_query(
                "UPDATE webhook_fan_out SET through = CAST($1 AS pg_snapshot) WHERE id = 1",
            )
            .bind::<Text, _>(&now),
        )
        .execute(self)
        .await?;
        Ok(())
    }
}
