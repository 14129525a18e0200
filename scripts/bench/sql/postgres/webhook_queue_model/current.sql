-- Model (not the application's statements): what PostgreSQL does today for 20 deliveries
-- that succeed at their first attempt, written as the queue's statements are, batched by 20:
-- the deliveries' rows queued by the writes' fan-out, the claims taken (`webhook_inflight`) with
-- the pending rows and the events' bodies read, then the turn that records them: the
-- endpoint's health, the attempts' rows, the deliveries' status, the claims released.
-- (The fan-out is one transaction here; in the API it is part of each adjustment's.)
\set r random(1, 9000000000000000000)
\set e random(1, 199000)
BEGIN;
INSERT INTO webhook_deliveries (id, shop_id, endpoint_id, event_seq, resource, status, attempts, next_attempt_at_ms, created_at_ms, updated_at_ms)
SELECT 'd' || (:r)::text || '-' || g, 's', 'we_model', :e::bigint + g, 'stock_v' || (:r)::text || '-' || g, 'pending', 0, 1, 1, 1 FROM generate_series(1, 20) g;
COMMIT;
BEGIN;
INSERT INTO webhook_inflight (endpoint_id, resource, claimed_by, claimed_until_ms)
SELECT 'we_model', 'stock_v' || (:r)::text || '-' || g, 'inst', 99 FROM generate_series(1, 20) g
ON CONFLICT (endpoint_id, resource) DO UPDATE SET claimed_by = excluded.claimed_by WHERE webhook_inflight.claimed_until_ms < 5 RETURNING endpoint_id, resource;
SELECT id, endpoint_id, resource, event_seq, attempts FROM webhook_deliveries WHERE status = 'pending' AND endpoint_id = 'we_model' AND resource = ANY (ARRAY(SELECT 'stock_v' || (:r)::text || '-' || g FROM generate_series(1, 20) g)) ORDER BY event_seq;
SELECT seq, id, body FROM webhook_events WHERE seq = ANY (ARRAY(SELECT :e::bigint + g FROM generate_series(1, 20) g));
COMMIT;
BEGIN;
SELECT id, failing_since_ms FROM webhook_endpoints WHERE id = 'we_model';
UPDATE webhook_endpoints SET failures_in_a_row = 0, last_attempt_at_ms = :r::bigint WHERE id = 'we_model';
INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, attempt, status, response_status, duration_ms, error, response_excerpt, created_at_ms)
SELECT 'a' || (:r)::text || '-' || g, 'd' || (:r)::text || '-' || g, 'we_model', 1, 'succeeded', 204, 2, NULL, '', 1 FROM generate_series(1, 20) g;
UPDATE webhook_deliveries SET status = 'succeeded', attempts = attempts + 1, next_attempt_at_ms = NULL, updated_at_ms = 2 WHERE id = ANY (ARRAY(SELECT 'd' || (:r)::text || '-' || g FROM generate_series(1, 20) g)) AND status = 'pending';
DELETE FROM webhook_inflight WHERE endpoint_id = 'we_model' AND resource = ANY (ARRAY(SELECT 'stock_v' || (:r)::text || '-' || g FROM generate_series(1, 20) g)) AND claimed_by = 'inst';
COMMIT;
