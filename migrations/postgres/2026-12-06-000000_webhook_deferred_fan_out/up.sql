-- PostgreSQL queues an event's deliveries in the workers' turn, in batches, rather than in the
-- write's transaction (crates/persistence/src/webhooks/queue/fan_out.rs), as SQLite has since
-- 2026-11-30: the event names the endpoints that receive it as of its commit (`receivers`,
-- written by its INSERT), and `webhook_fan_out` is how far the workers have queued.
--
-- Events are not visible in `seq` order here (a transaction draws its `seq` before it
-- commits), so the cursor is a snapshot, as PgQ's batches are: a turn queues the events of
-- the transactions that its own snapshot sees and the cursor's did not (`writer_xid`, the
-- writing transaction's id), then keeps its snapshot as the cursor. A long transaction
-- anywhere delays none of the others' events. Events written before this migration were
-- fanned out at their commit and name no receivers.
ALTER TABLE webhook_events ADD COLUMN receivers TEXT COLLATE "C";
ALTER TABLE webhook_events ADD COLUMN writer_xid xid8;
ALTER TABLE webhook_events ALTER COLUMN writer_xid SET DEFAULT pg_current_xact_id();
CREATE TABLE webhook_fan_out (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    through pg_snapshot NOT NULL
);
INSERT INTO webhook_fan_out (id, through) VALUES (1, pg_current_snapshot());
-- The events whose deliveries the workers queue: only those with receivers, so that the
-- writes of shops without enabled endpoints never make the workers write.
CREATE INDEX webhook_events_receivers_xid ON webhook_events (writer_xid)
    WHERE receivers IS NOT NULL;
