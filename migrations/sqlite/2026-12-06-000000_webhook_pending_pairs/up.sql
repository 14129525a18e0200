-- A turn claims a new event's first attempt straight from the log only when its
-- (endpoint, resource) pair has no pending delivery (crates/persistence/src/webhooks/queue/
-- fast_lane.rs): a seek in this index of the pending rows alone, however many deliveries
-- a resource has had.
CREATE INDEX webhook_deliveries_pending_pairs ON webhook_deliveries (endpoint_id, resource)
    WHERE status = 'pending';
