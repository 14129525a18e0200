-- POST /api/v2/clients/{id}/loyalty/adjustments with {"points": 1, "reason": "bench"}, no
-- Idempotency-Key (a credit that crosses no tier threshold).
-- pgbench script: the statements one API request sends, as diesel-async sends them (taken from
-- PostgreSQL's log with log_statement = all): each is a prepared statement, so run with
-- `-M prepared`. Variables (-D): shop_id, key_prefix (an API key prefix of that shop),
-- event_body (a client.updated event's body as the API rendered it, for its size), clients
-- (pgbench's -c), targets (the rows of bench_write_targets of kind 'client') and turn=0.
-- Client c credits target k = (c + clients × turn) mod targets of bench_write_targets (the
-- ids wrk's credits cycle through): the clients never share a client row.
-- The first statement is not part of the request: it makes this transaction's values, which
-- the application makes in memory (fresh ids, the time, its constant binds). `pgbench -r`
-- shows its share of the latency. One difference with the log, forced by pgbench: the
-- fan-out's delivery id prefix, bound as `'dlv_<seq>_'` by the application, is made in SQL
-- from the event's `seq`. No row lock of its own: the relative UPDATE takes the client's.

\set delta 1
\set lowest -9223372036854775807 - 1
\set highest 1000000000000000 - :delta
\set k (:client_id + :clients * :turn) % :targets
\set turn :turn + 1
SELECT t.id AS credited_id, 'lpa_' || gen_random_uuid() AS adjustment_id,
       'evt_' || gen_random_uuid() AS event_id,
       (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms,
       'bench' AS reason, 'client.updated' AS event_type, 'client:' || t.id AS resource,
       'dlv_' AS dlv, '_' AS sep, 'pending' AS pending, 0 AS zero, 'enabled' AS enabled,
       '%,client.updated,%' AS receives_pattern
FROM bench_write_targets t
WHERE t.kind = 'client' AND t.k = :k
\gset
BEGIN;
-- (b) The client's three counters, moved by one guarded relative UPDATE (clients/points.rs).
UPDATE "clients" SET "points" = ("clients"."points" + :delta), "points_lifetime" = ("clients"."points_lifetime" + :delta), "points_all_time" = ("clients"."points_all_time" + :delta), "updated_at_ms" = CASE WHEN (("clients"."updated_at_ms" < :now_ms)) THEN (:now_ms) ELSE (("clients"."updated_at_ms" + 1)) END WHERE ((((("clients"."shop_id" = :shop_id) AND ("clients"."id" = :credited_id)) AND ("clients"."points" BETWEEN :lowest AND :highest)) AND ("clients"."points_lifetime" <= :highest)) AND ("clients"."points_all_time" <= :highest)) RETURNING "clients"."points", "clients"."points_lifetime", "clients"."points_all_time" \gset
\set new_points :points
\set previous_points :points - :delta
-- (c) The tiers, to tell whether the credit crossed a threshold (it does not here).
SELECT "loyalty_tiers"."id", "loyalty_tiers"."shop_id", "loyalty_tiers"."name", "loyalty_tiers"."min_points_lifetime", "loyalty_tiers"."color" FROM "loyalty_tiers" WHERE ("loyalty_tiers"."shop_id" = :shop_id) ORDER BY "loyalty_tiers"."min_points_lifetime" ASC, "loyalty_tiers"."id" ASC;
-- (d) The adjustment kept.
INSERT INTO "loyalty_adjustments" ("id", "shop_id", "client_id", "delta", "previous_points", "new_points", "reason", "api_key_prefix", "created_at_ms") VALUES (:adjustment_id, :shop_id, :credited_id, :delta, :previous_points, :new_points, :reason, :key_prefix, :now_ms);
-- (e) The client read back as just written, for its client.updated event, then the event and
-- its deliveries to the enabled endpoints.
SELECT "clients"."id", "clients"."shop_id", "clients"."name", "clients"."display_name", "clients"."phone", "clients"."email", "clients"."billing_company", "clients"."billing_vat_number", "clients"."billing_address", "clients"."billing_city", "clients"."billing_postal_code", "clients"."billing_country", "clients"."birth_date", "clients"."points", "clients"."points_expires_at_ms", "clients"."points_lifetime", "clients"."points_all_time", "clients"."tier_achieved_at_ms", "clients"."receipt_by_email", "clients"."tags", "clients"."created_at_ms", "clients"."updated_at_ms" FROM "clients" WHERE (("clients"."shop_id" = :shop_id) AND ("clients"."id" = :credited_id)) ORDER BY "clients"."id" ASC;
INSERT INTO "webhook_events" ("id", "shop_id", "type", "resource", "body", "created_at_ms") VALUES (:event_id, :shop_id, :event_type, :resource, :event_body, :now_ms) RETURNING "webhook_events"."seq" \gset
INSERT INTO "webhook_deliveries" ("id", "shop_id", "endpoint_id", "event_seq", "resource", "status", "attempts", "next_attempt_at_ms", "created_at_ms", "updated_at_ms") SELECT (((:dlv || CAST(:seq AS TEXT) || :sep) || "webhook_endpoints"."id")), "webhook_endpoints"."shop_id", "webhook_endpoints"."id", :seq, :resource, :pending, :zero, :now_ms, :now_ms, :now_ms FROM "webhook_endpoints" WHERE ((("webhook_endpoints"."shop_id" = :shop_id) AND ("webhook_endpoints"."status" = :enabled)) AND ("webhook_endpoints"."receives" LIKE :receives_pattern)) ON CONFLICT DO NOTHING;
COMMIT;
