DROP INDEX webhook_events_unpositioned;
DROP INDEX webhook_events_shop_id_log_position;
ALTER TABLE webhook_events DROP COLUMN log_position;
