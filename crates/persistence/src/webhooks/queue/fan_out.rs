//! The deliveries SQLite queues in the workers' turn: those of the events committed since the
//! last turn, to the endpoints each event named at its commit (`webhooks/outbox.rs`), in one
//! `INSERT … SELECT` for the batch. PostgreSQL queued them in the write's transaction and has
//! nothing to do here.

use diesel::dsl::sql;
use diesel::sql_types::Bool;
use diesel_async::RunQueryDsl;

use crate::error::DbError;
use crate::schema::{webhook_endpoints, webhook_events};
use crate::sql::kept_prepared::KeptPrepared;
use crate::webhooks::deliveries::queue_fanned_out;

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
        queue_fanned_out!(
            &mut *self,
            on: webhook_endpoints::shop_id.eq(webhook_events::shop_id).and(sql::<Bool>(
                "instr(',' || webhook_events.receivers || ',', \
                 ',' || webhook_endpoints.id || ',') > 0"
            )),
            events: sql::<Bool>(
                "webhook_events.receivers IS NOT NULL AND webhook_events.seq > \
                 (SELECT through_seq FROM webhook_fan_out WHERE id = 1)"
            )
        )
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

impl DeferredFanOut for diesel_async::AsyncPgConnection {
    async fn fan_out_behind(&mut self) -> Result<bool, DbError> {
        Ok(false)
    }

    async fn fan_out(&mut self) -> Result<(), DbError> {
        Ok(())
    }
}
