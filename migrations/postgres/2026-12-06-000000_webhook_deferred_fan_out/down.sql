DROP INDEX webhook_events_receivers_xid;
DROP TABLE webhook_fan_out;
ALTER TABLE webhook_events DROP COLUMN writer_xid;
ALTER TABLE webhook_events DROP COLUMN receivers;
