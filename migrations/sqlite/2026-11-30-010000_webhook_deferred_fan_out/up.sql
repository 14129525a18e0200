-- SQLite queues an event's deliveries in the workers' next turn rather than in the write's
-- transaction (crates/persistence/src/webhooks/outbox.rs, queue/fan_out.rs): the event names
-- the endpoints that receive it as of its commit, and `webhook_fan_out` is how far the
-- workers have queued. One writer at a time numbers the events in commit order, so the
-- cursor misses none. Events written before this migration were fanned out at their commit.
ALTER TABLE webhook_events ADD COLUMN receivers TEXT;
CREATE TABLE webhook_fan_out (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    through_seq BIGINT NOT NULL
);
INSERT INTO webhook_fan_out (id, through_seq) SELECT 1, coalesce(max(seq), 0) FROM webhook_events;
-- The events whose deliveries wait for the workers: only those with receivers, so that the
-- writes of shops without enabled endpoints never make the workers write.
CREATE INDEX webhook_events_receivers_seq ON webhook_events (seq) WHERE receivers IS NOT NULL;
