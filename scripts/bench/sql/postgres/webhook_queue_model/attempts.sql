-- Model: the floor issue 34 sets, one row per attempt made: the events read, the endpoint's
-- health and the attempts' rows, nothing else.
\set r random(1, 9000000000000000000)
\set e random(1, 199000)
BEGIN;
SELECT seq, id, resource, body FROM webhook_events WHERE seq = ANY (ARRAY(SELECT :e::bigint + g FROM generate_series(1, 20) g));
COMMIT;
BEGIN;
SELECT id, failing_since_ms FROM webhook_endpoints WHERE id = 'we_model';
UPDATE webhook_endpoints SET failures_in_a_row = 0, last_attempt_at_ms = :r::bigint WHERE id = 'we_model';
INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, attempt, status, response_status, duration_ms, error, response_excerpt, created_at_ms)
SELECT 'a' || (:r)::text || '-' || g, 'd' || (:r)::text || '-' || g, 'we_model', 1, 'succeeded', 204, 2, NULL, '', 1 FROM generate_series(1, 20) g;
COMMIT;
