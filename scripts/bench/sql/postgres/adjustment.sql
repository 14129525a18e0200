-- POST /api/v1/stock/adjustments with {"variantId": …, "quantity": 1, "reason": "bench"}, no
-- Idempotency-Key, of a tracked variant: an applied adjustment, with its two events.
-- pgbench script: the statements one API request sends, as diesel-async sends them (taken from
-- PostgreSQL's log with log_statement = all): each is a prepared statement, so run with
-- `-M prepared`. Variables (-D): shop_id, slug (the shop's), key_prefix (an API key prefix of
-- that shop), stock_event_body and product_event_body (a stock.updated and a product.updated
-- event's body as the API rendered them for the captured adjustment, for their size).
-- Each pgbench client adjusts its own variant, {slug}-p{client_id + 1, 7 digits}-v0, of the
-- product {slug}-p{client_id + 1, 7 digits}, so clients never wait for each other's row lock.
-- The first statement is not part of the request: it makes this transaction's values, which
-- the application has in memory (the variant's id and its product's, which the request
-- reads in its first statement, fresh ids, the time, its constant binds). `pgbench -r` shows
-- its share of the latency.
-- One difference with the log, forced by pgbench: each fan-out's delivery id prefix, bound as
-- `'dlv_<seq>_'` by the application, is made in SQL from its event's `seq` (pgbench cannot
-- build text from the RETURNING it reads). A shop with no enabled endpoint receiving the
-- events (the benchmark's) gets no delivery from the fan-outs, in the API's run as here.

\set one 1
\set delta 1
\set lowest -1000000000000 - :delta
\set highest 1000000000000 - :delta
SELECT :slug || '-p' || lpad((:client_id + 1)::text, 7, '0') AS product_id,
       :slug || '-p' || lpad((:client_id + 1)::text, 7, '0') || '-v0' AS variant_id,
       gen_random_uuid()::text AS movement_id,
       (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms,
       'bench' AS reason, '' AS empty,
       'evt_' || gen_random_uuid() AS stock_event_id, 'stock.updated' AS stock_event_type,
       'stock:' || :slug || '-p' || lpad((:client_id + 1)::text, 7, '0') || '-v0' AS stock_resource,
       '%,stock.updated,%' AS stock_receives,
       'evt_' || gen_random_uuid() AS product_event_id, 'product.updated' AS product_event_type,
       'product:' || :slug || '-p' || lpad((:client_id + 1)::text, 7, '0') AS product_resource,
       '%,product.updated,%' AS product_receives,
       'dlv_' AS dlv, '_' AS sep, 'pending' AS pending, 0 AS zero, 'enabled' AS enabled
\gset
BEGIN;
-- (b) The variant alone (it carries its product and its own tracking) and its stock: the new
-- stock must stay within ±10^12 (crates/persistence/src/stock/adjust.rs, find_variant).
SELECT "variants"."product_id", "variants"."track_stock", "variants"."stock" FROM "variants" WHERE (("variants"."shop_id" = :shop_id) AND ("variants"."id" = :variant_id)) LIMIT :one;
-- (c) The product's updated_at moves forward, never back (touch_product), then the relative
-- stock update (add_stock), its stamp past the stock entry's last one.
UPDATE "products" SET "updated_at_ms" = CASE WHEN (("products"."updated_at_ms" < :now_ms)) THEN (:now_ms) ELSE (("products"."updated_at_ms" + 1)) END WHERE (("products"."shop_id" = :shop_id) AND ("products"."id" = :product_id));
UPDATE "variants" SET "stock" = ("variants"."stock" + :delta), "stock_updated_at_ms" = CASE WHEN (("variants"."stock_updated_at_ms" < :now_ms)) THEN (:now_ms) ELSE (("variants"."stock_updated_at_ms" + 1)) END WHERE ((("variants"."shop_id" = :shop_id) AND ("variants"."id" = :variant_id)) AND ("variants"."stock" BETWEEN :lowest AND :highest)) RETURNING "variants"."stock", "variants"."stock_updated_at_ms" \gset
\set new_stock :stock
\set previous_stock :stock - :delta
-- (d) The movement.
INSERT INTO "stock_movements" ("id", "shop_id", "variant_id", "product_id", "delta", "previous_stock", "new_stock", "reason", "api_key_prefix", "created_at_ms") VALUES (:movement_id, :shop_id, :variant_id, :product_id, :delta, :previous_stock, :new_stock, :reason, :key_prefix, :now_ms);
-- (e) The product read back as just written, with its variants (the statement of
-- product.sql), for the events' bodies; its stock.updated then its product.updated, each
-- numbered by its RETURNING; then their fan-outs, one an event, to the shop's enabled
-- endpoints that receive it (webhooks/outbox.rs, append_stock_change).
(SELECT "products"."id", "products"."shop_id", "products"."name", "products"."product_type", "products"."ean", "products"."sku", "products"."price_cents", "products"."list_price_cents", "products"."compare_at_price_cents", "products"."promo_active", "products"."tax_rate_hundredths", "products"."active", "products"."track_stock", "products"."tags", "products"."photos", "products"."category_id", "products"."brand_id", :empty, "products"."created_at_ms", "products"."updated_at_ms", "categories"."name", "brands"."name", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM (("products" LEFT OUTER JOIN "categories" ON (("categories"."id" = "products"."category_id") AND ("categories"."shop_id" = "products"."shop_id"))) LEFT OUTER JOIN "brands" ON (("brands"."id" = "products"."brand_id") AND ("brands"."shop_id" = "products"."shop_id"))) WHERE (("products"."shop_id" = :shop_id) AND ("products"."id" = :product_id)) ORDER BY "products"."id" ASC LIMIT 1) UNION ALL (SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "variants"."id", "variants"."shop_id", "variants"."product_id", "variants"."label", "variants"."sku", "variants"."barcode", "variants"."swatch_color", "variants"."price_cents", "variants"."stock", "variants"."low_stock_threshold", "variants"."is_default", "variants"."active", "variants"."track_stock", "variants"."position", :empty FROM "variants" WHERE (("variants"."shop_id" = :shop_id) AND ("variants"."product_id" = :product_id)));
INSERT INTO "webhook_events" ("id", "shop_id", "type", "resource", "body", "created_at_ms") VALUES (:stock_event_id, :shop_id, :stock_event_type, :stock_resource, :stock_event_body, :now_ms) RETURNING "webhook_events"."seq" \gset stock_
INSERT INTO "webhook_events" ("id", "shop_id", "type", "resource", "body", "created_at_ms") VALUES (:product_event_id, :shop_id, :product_event_type, :product_resource, :product_event_body, :now_ms) RETURNING "webhook_events"."seq" \gset product_
INSERT INTO "webhook_deliveries" ("id", "shop_id", "endpoint_id", "event_seq", "resource", "status", "attempts", "next_attempt_at_ms", "created_at_ms", "updated_at_ms") SELECT (((:dlv || CAST(:stock_seq AS TEXT) || :sep) || "webhook_endpoints"."id")), "webhook_endpoints"."shop_id", "webhook_endpoints"."id", :stock_seq, :stock_resource, :pending, :zero, :now_ms, :now_ms, :now_ms FROM "webhook_endpoints" WHERE ((("webhook_endpoints"."shop_id" = :shop_id) AND ("webhook_endpoints"."status" = :enabled)) AND ("webhook_endpoints"."receives" LIKE :stock_receives)) ON CONFLICT DO NOTHING;
INSERT INTO "webhook_deliveries" ("id", "shop_id", "endpoint_id", "event_seq", "resource", "status", "attempts", "next_attempt_at_ms", "created_at_ms", "updated_at_ms") SELECT (((:dlv || CAST(:product_seq AS TEXT) || :sep) || "webhook_endpoints"."id")), "webhook_endpoints"."shop_id", "webhook_endpoints"."id", :product_seq, :product_resource, :pending, :zero, :now_ms, :now_ms, :now_ms FROM "webhook_endpoints" WHERE ((("webhook_endpoints"."shop_id" = :shop_id) AND ("webhook_endpoints"."status" = :enabled)) AND ("webhook_endpoints"."receives" LIKE :product_receives)) ON CONFLICT DO NOTHING;
COMMIT;
