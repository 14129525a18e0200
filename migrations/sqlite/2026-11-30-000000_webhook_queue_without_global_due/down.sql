CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at_ms) WHERE status = 'pending';
