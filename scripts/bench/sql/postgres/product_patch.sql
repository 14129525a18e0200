-- PATCH /api/v2/products/{id} with {"priceCents": N}, no If-Match, of a product of the
-- benchmarked shape (one variant; a category and a brand; every code; a swatch colour and a
-- low-stock threshold; no compare-at price: see README.md).
-- pgbench script: the statements one API request sends, as diesel-async sends them (taken from
-- PostgreSQL's log with log_statement = all): each is a prepared statement, so run with
-- `-M prepared`. Variables (-D): shop_id, key_prefix (an API key prefix of that shop),
-- event_body (a product.updated event's body as the API rendered it, for its size), clients
-- (pgbench's -c), targets (the rows of bench_write_targets of kind 'product') and turn=0.
-- Client c patches target k = (c + clients × turn) mod targets of bench_write_targets, a table
-- of the harness holding the ids wrk's PATCH cycles through: the clients never share a
-- product (targets is a multiple of clients), as wrk's threads never do.
-- The first statement is not part of the request: it makes this transaction's values, which
-- the application has in memory (the product's row as it read it, fresh ids, the time, its
-- constant binds). `pgbench -r` shows its share of the latency.
-- Two differences with the log, both forced by pgbench: the product's compare-at price, NULL
-- in this shape, is written NULL where the application binds NULL ($9, $28: pgbench binds
-- text only); and the fan-out's delivery id prefix, bound as `'dlv_<seq>_'` by the
-- application ($1), is made in SQL from the event's `seq` (pgbench cannot build text from the
-- RETURNING it reads).

\set one 1
\set k (:client_id + :clients * :turn) % :targets
\set turn :turn + 1
\set price random(100, 100000000)
SELECT t.id AS product_id, p.name AS p_name, p.product_type AS p_type, p.ean AS p_ean,
       p.sku AS p_sku, p.list_price_cents AS p_list_price, p.promo_active AS p_promo,
       p.tax_rate_hundredths AS p_tax, p.active AS p_active, p.track_stock AS p_track,
       p.tags AS p_tags, p.photos AS p_photos, p.search_text AS p_search,
       p.created_at_ms AS p_created, p.category_id AS category_id, p.brand_id AS brand_id,
       'wrt_' || gen_random_uuid() AS write_id, 'evt_' || gen_random_uuid() AS event_id,
       (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms,
       '' AS empty, 'product' AS resource_kind, 'updated' AS action,
       '["priceCents"]' AS changed, 'product.updated' AS event_type,
       'product:' || t.id AS resource, 'dlv_' AS dlv, '_' AS sep, 'pending' AS pending,
       0 AS zero, 'enabled' AS enabled, '%,product.updated,%' AS receives_pattern
FROM bench_write_targets t
JOIN products p ON p.shop_id = :shop_id AND p.id = t.id
WHERE t.kind = 'product' AND t.k = :k
\gset
BEGIN;
-- The product's row lock, then its variants' (crates/persistence/src/database/write_locks.rs).
SELECT "products"."id" FROM "products" WHERE (("products"."shop_id" = :shop_id) AND ("products"."id" = :product_id)) LIMIT :one FOR NO KEY UPDATE;
SELECT "variants"."id" FROM "variants" WHERE (("variants"."shop_id" = :shop_id) AND ("variants"."product_id" = :product_id)) ORDER BY "variants"."id" ASC FOR NO KEY UPDATE;
-- The product as it is, with its variants (the statement of product.sql).
(SELECT "products"."id", "products"."shop_id", "products"."name", "products"."product_type", "products"."ean", "products"."sku", "products"."price_cents", "products"."list_price_cents", "products"."compare_at_price_cents", "products"."promo_active", "products"."tax_rate_hundredths", "products"."active", "products"."track_stock", "products"."tags", "products"."photos", "products"."category_id", "products"."brand_id", :empty, "products"."created_at_ms", "products"."updated_at_ms", "categories"."name", "brands"."name", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM (("products" LEFT OUTER JOIN "categories" ON (("categories"."id" = "products"."category_id") AND ("categories"."shop_id" = "products"."shop_id"))) LEFT OUTER JOIN "brands" ON (("brands"."id" = "products"."brand_id") AND ("brands"."shop_id" = "products"."shop_id"))) WHERE (("products"."shop_id" = :shop_id) AND ("products"."id" = :product_id)) ORDER BY "products"."id" ASC LIMIT 1) UNION ALL (SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "variants"."id", "variants"."shop_id", "variants"."product_id", "variants"."label", "variants"."sku", "variants"."barcode", "variants"."swatch_color", "variants"."price_cents", "variants"."stock", "variants"."low_stock_threshold", "variants"."is_default", "variants"."active", "variants"."track_stock", "variants"."position", :empty FROM "variants" WHERE (("variants"."shop_id" = :shop_id) AND ("variants"."product_id" = :product_id)));
-- The rows that changed written back, upserted (catalogue/write.rs, the import's statements):
-- for a new price, the product's row alone (its category, brand and variant are as stored).
INSERT INTO "products" ("id", "shop_id", "name", "product_type", "ean", "sku", "price_cents", "list_price_cents", "compare_at_price_cents", "promo_active", "tax_rate_hundredths", "active", "track_stock", "tags", "photos", "category_id", "brand_id", "search_text", "created_at_ms", "updated_at_ms") VALUES (:product_id, :shop_id, :p_name, :p_type, :p_ean, :p_sku, :price, :p_list_price, NULL, :p_promo, :p_tax, :p_active, :p_track, :p_tags, :p_photos, :category_id, :brand_id, :p_search, :p_created, :now_ms) ON CONFLICT ("id") DO UPDATE SET "shop_id" = :shop_id, "name" = :p_name, "product_type" = :p_type, "ean" = :p_ean, "sku" = :p_sku, "price_cents" = :price, "list_price_cents" = :p_list_price, "compare_at_price_cents" = NULL, "promo_active" = :p_promo, "tax_rate_hundredths" = :p_tax, "active" = :p_active, "track_stock" = :p_track, "tags" = :p_tags, "photos" = :p_photos, "category_id" = :category_id, "brand_id" = :brand_id, "search_text" = :p_search, "created_at_ms" = :p_created, "updated_at_ms" = :now_ms WHERE ("products"."shop_id" = :shop_id);
-- The console's activity line, the event and its deliveries to the enabled endpoints.
INSERT INTO "api_writes" ("id", "shop_id", "api_key_prefix", "resource", "resource_id", "action", "changed", "created_at_ms") VALUES (:write_id, :shop_id, :key_prefix, :resource_kind, :product_id, :action, :changed, :now_ms);
INSERT INTO "webhook_events" ("id", "shop_id", "type", "resource", "body", "created_at_ms") VALUES (:event_id, :shop_id, :event_type, :resource, :event_body, :now_ms) RETURNING "webhook_events"."seq" \gset
INSERT INTO "webhook_deliveries" ("id", "shop_id", "endpoint_id", "event_seq", "resource", "status", "attempts", "next_attempt_at_ms", "created_at_ms", "updated_at_ms") SELECT (((:dlv || CAST(:seq AS TEXT) || :sep) || "webhook_endpoints"."id")), "webhook_endpoints"."shop_id", "webhook_endpoints"."id", :seq, :resource, :pending, :zero, :now_ms, :now_ms, :now_ms FROM "webhook_endpoints" WHERE ((("webhook_endpoints"."shop_id" = :shop_id) AND ("webhook_endpoints"."status" = :enabled)) AND ("webhook_endpoints"."receives" LIKE :receives_pattern)) ON CONFLICT DO NOTHING;
COMMIT;
