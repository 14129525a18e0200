DELETE FROM webhook_deliveries d WHERE NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = d.endpoint_id)
    OR NOT EXISTS (SELECT 1 FROM webhook_events ev WHERE ev.seq = d.event_seq);
DELETE FROM webhook_attempts a WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id);
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_seq_fkey
    FOREIGN KEY (event_seq) REFERENCES webhook_events (seq) ON DELETE CASCADE;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey
    FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints (id) ON DELETE CASCADE;
ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_delivery_id_fkey
    FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries (id) ON DELETE CASCADE;
