-- POST /api/v1/stock/adjustments without an Idempotency-Key (quantity +1).
-- pgbench script: the statements one API request sends, as diesel-async sends them (taken from
-- PostgreSQL's log with log_statement = all): each is a prepared statement, so run with
-- `-M prepared`. Variables: -D shop_id=<shop id> -D slug=<shop slug> -D key_prefix=<an
-- API key prefix of that shop> (see README.md). Each pgbench client adjusts its own variant,
-- {slug}-p{client_id + 1, 7 digits}-v0, so clients never wait for each other's row lock.
-- The first statement is not part of the request: it makes this transaction's values (the
-- variant and product ids, a fresh movement id, the time), which the application makes in
-- memory. `pgbench -r` shows its share of the latency.

\set one 1
\set delta 1
\set lowest -1000000000000 - :delta
\set highest 1000000000000 - :delta
SELECT :slug || '-p' || lpad((:client_id + 1)::text, 7, '0') AS product_id,
       :slug || '-p' || lpad((:client_id + 1)::text, 7, '0') || '-v0' AS variant_id,
       gen_random_uuid()::text AS movement_id,
       (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms,
       'inventaire' AS reason
\gset
BEGIN;
-- (b) The shop's variant, its product, the variant's own track_stock and its stock (the
-- new stock must stay within ±10^12).
SELECT "products"."id", "variants"."track_stock", "variants"."stock" FROM ("variants" INNER JOIN "products" ON (("products"."id" = "variants"."product_id") AND ("products"."shop_id" = "variants"."shop_id"))) WHERE (("variants"."shop_id" = :shop_id) AND ("variants"."id" = :variant_id)) LIMIT :one;
-- (c) The product's updated_at moves forward, then the relative stock update.
UPDATE "products" SET "updated_at_ms" = :now_ms WHERE ((("products"."shop_id" = :shop_id) AND ("products"."id" = :product_id)) AND ("products"."updated_at_ms" < :now_ms));
UPDATE "variants" SET "stock" = ("variants"."stock" + :delta) WHERE ((("variants"."shop_id" = :shop_id) AND ("variants"."id" = :variant_id)) AND ("variants"."stock" BETWEEN :lowest AND :highest)) RETURNING "variants"."stock" \gset
\set new_stock :stock
\set previous_stock :stock - :delta
INSERT INTO "stock_movements" ("id", "shop_id", "variant_id", "product_id", "delta", "previous_stock", "new_stock", "reason", "api_key_prefix", "created_at_ms") VALUES (:movement_id, :shop_id, :variant_id, :product_id, :delta, :previous_stock, :new_stock, :reason, :key_prefix, :now_ms);
COMMIT;
