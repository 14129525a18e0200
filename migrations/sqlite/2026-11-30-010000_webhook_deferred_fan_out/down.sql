DROP TABLE webhook_fan_out;
ALTER TABLE webhook_events DROP COLUMN receivers;
