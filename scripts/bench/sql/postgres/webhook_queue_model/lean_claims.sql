-- Model: `lean.sql` with the claims several PostgreSQL instances need to keep one attempt in
-- flight per endpoint and resource: each pair's `webhook_inflight` row inserted as the events
-- are read, deleted when the attempts are recorded.
\set r random(1, 9000000000000000000)
\set e random(1, 199000)
BEGIN;
SELECT seq, id, resource, body FROM webhook_events WHERE seq = ANY (ARRAY(SELECT :e::bigint + g FROM generate_series(1, 20) g));
INSERT INTO webhook_inflight (endpoint_id, resource, claimed_by, claimed_until_ms)
SELECT 'we_model', 'stock_v' || (:r)::text || '-' || g, 'inst', 99 FROM generate_series(1, 20) g
ON CONFLICT (endpoint_id, resource) DO UPDATE SET claimed_by = excluded.claimed_by WHERE webhook_inflight.claimed_until_ms < 5 RETURNING endpoint_id, resource;
COMMIT;
BEGIN;
SELECT id, failing_since_ms FROM webhook_endpoints WHERE id = 'we_model';
UPDATE webhook_endpoints SET failures_in_a_row = 0, last_attempt_at_ms = :r::bigint WHERE id = 'we_model';
INSERT INTO webhook_deliveries (id, shop_id, endpoint_id, event_seq, resource, status, attempts, next_attempt_at_ms, created_at_ms, updated_at_ms)
SELECT 'd' || (:r)::text || '-' || g, 's', 'we_model', :e::bigint + g, 'stock_v' || (:r)::text || '-' || g, 'succeeded', 1, NULL, 1, 2 FROM generate_series(1, 20) g;
INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, attempt, status, response_status, duration_ms, error, response_excerpt, created_at_ms)
SELECT 'a' || (:r)::text || '-' || g, 'd' || (:r)::text || '-' || g, 'we_model', 1, 'succeeded', 204, 2, NULL, '', 1 FROM generate_series(1, 20) g;
DELETE FROM webhook_inflight WHERE endpoint_id = 'we_model' AND resource = ANY (ARRAY(SELECT 'stock_v' || (:r)::text || '-' || g FROM generate_series(1, 20) g)) AND claimed_by = 'inst';
COMMIT;
