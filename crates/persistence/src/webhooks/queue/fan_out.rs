//! The deliveries of the events committed since the last turn, which SQLite takes on in the
//! workers' turn: to the endpoints each event named at its commit (`webhooks/outbox.rs`),
//! the newest event of each pair claimed for its first attempt straight from the log, the
//! rest queued (`fast_lane.rs`). PostgreSQL queued them in the write's transaction and has
//! nothing to do here.

use shop_domain::Timestamp;
use shop_ports::port::ClaimRoom;

use super::fast_lane::{self, LaneMove, LanePlan, LaneSnapshot, QueueRow};
use crate::error::DbError;

pub(super) trait DeferredFanOut {
    /// What the turn takes on of the events past `snapshot`'s cursor, within `room`: reads
    /// only, outside the turn's transaction.
    fn plan_fan_out(
        &mut self,
        snapshot: &LaneSnapshot,
        room: &ClaimRoom,
        now: Timestamp,
    ) -> impl Future<Output = Result<LanePlan, DbError>> + Send;

    /// Queues the plan's rows, in the turn's transaction.
    fn queue_rows(
        &mut self,
        rows: &[QueueRow],
        now: Timestamp,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// Stores how far a run starting now would have to read the log again, in the turn's
    /// transaction.
    fn store_cursor(
        &mut self,
        snapshot: &LaneSnapshot,
        lane: &LaneMove,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl<R: crate::database::SqliteRunner> DeferredFanOut for crate::database::SqliteOn<R> {
    async fn plan_fan_out(
        &mut self,
        snapshot: &LaneSnapshot,
        room: &ClaimRoom,
        now: Timestamp,
    ) -> Result<LanePlan, DbError> {
        fast_lane::plan_first_attempts(self, snapshot, room, now).await
    }

    async fn queue_rows(&mut self, rows: &[QueueRow], now: Timestamp) -> Result<(), DbError> {
        fast_lane::insert_queue_rows(self, rows, now).await
    }

    async fn store_cursor(
        &mut self,
        snapshot: &LaneSnapshot,
        lane: &LaneMove,
    ) -> Result<(), DbError> {
        fast_lane::store_lane_cursor(self, snapshot, lane).await
    }
}

impl DeferredFanOut for diesel_async::AsyncPgConnection {
    async fn plan_fan_out(
        &mut self,
        _: &LaneSnapshot,
        _: &ClaimRoom,
        _: Timestamp,
    ) -> Result<LanePlan, DbError> {
        Ok(LanePlan::default())
    }

    async fn queue_rows(&mut self, _: &[QueueRow], _: Timestamp) -> Result<(), DbError> {
        Ok(())
    }

    async fn store_cursor(&mut self, _: &LaneSnapshot, _: &LaneMove) -> Result<(), DbError> {
        Ok(())
    }
}
