DROP INDEX webhook_events_receivers_seq;
DROP TABLE webhook_fan_out;
ALTER TABLE webhook_events DROP COLUMN receivers;
