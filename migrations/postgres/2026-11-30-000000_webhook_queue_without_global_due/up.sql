-- The queue is read endpoint by endpoint (crates/persistence/src/webhooks/queue/head.rs), the
-- next retry too: the pending deliveries' index of (endpoint, due time) serves every reader,
-- and this one, in due-time order across endpoints, was only more to write for every
-- delivery queued and ended (docs/PERFORMANCE.md, "Webhooks").
DROP INDEX webhook_deliveries_due;
