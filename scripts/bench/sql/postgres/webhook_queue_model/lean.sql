-- Model: 20 first attempts taken straight from the event log, as SQLite's lane takes them
-- (crates/persistence/src/webhooks/queue/fast_lane.rs): the events read, then at the outcome
-- the endpoint's health, each delivery's row written once (already `succeeded`) and its
-- attempt's row. No claim: one instance (SQLite's case).
\set r random(1, 9000000000000000000)
\set e random(1, 199000)
BEGIN;
SELECT seq, id, resource, body FROM webhook_events WHERE seq = ANY (ARRAY(SELECT :e::bigint + g FROM generate_series(1, 20) g));
COMMIT;
BEGIN;
SELECT id, failing_since_ms FROM webhook_endpoints WHERE id = 'we_model';
UPDATE webhook_endpoints SET failures_in_a_row = 0, last_attempt_at_ms = :r::bigint WHERE id = 'we_model';
INSERT INTO webhook_deliveries (id, shop_id, endpoint_id, event_seq, resource, status, attempts, next_attempt_at_ms, created_at_ms, updated_at_ms)
SELECT 'd' || (:r)::text || '-' || g, 's', 'we_model', :e::bigint + g, 'stock_v' || (:r)::text || '-' || g, 'succeeded', 1, NULL, 1, 2 FROM generate_series(1, 20) g;
INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, attempt, status, response_status, duration_ms, error, response_excerpt, created_at_ms)
SELECT 'a' || (:r)::text || '-' || g, 'd' || (:r)::text || '-' || g, 'we_model', 1, 'succeeded', 204, 2, NULL, '', 1 FROM generate_series(1, 20) g;
COMMIT;
