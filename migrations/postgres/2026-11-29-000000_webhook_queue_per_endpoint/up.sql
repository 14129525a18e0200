-- Each endpoint's queue is read on its own (crates/persistence/src/webhooks/queue/head.rs):
-- its pending deliveries in the order they fall due, and the endpoints with any, one after
-- the other.
CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint_id, next_attempt_at_ms)
    WHERE status = 'pending';
