-- The event log's order (GET /api/v2/events): each shop's events numbered in the order they
-- became visible, drawn when the log is read (crates/persistence/src/webhooks/events.rs)
-- rather than by making a shop's writers commit one at a time. `seq` stays the order in which
-- the events were appended, which is commit order for the events of one resource.
ALTER TABLE webhook_events ADD COLUMN log_position BIGINT;
UPDATE webhook_events SET log_position = seq;
CREATE UNIQUE INDEX webhook_events_shop_id_log_position ON webhook_events (shop_id, log_position);
CREATE INDEX webhook_events_unpositioned ON webhook_events (shop_id, seq) WHERE log_position IS NULL;
