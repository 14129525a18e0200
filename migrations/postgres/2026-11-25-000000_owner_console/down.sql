DROP TABLE tracking_switches;
ALTER TABLE variants DROP COLUMN track_stock;
ALTER TABLE api_keys DROP COLUMN last_used_at_ms;
DROP TABLE owner_sessions;
DROP TABLE owners;
