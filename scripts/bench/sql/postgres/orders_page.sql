-- GET /api/v1/orders?limit=20 (first page, newest first).
-- pgbench script: the statements one API request sends, as diesel-async sends them (taken from
-- PostgreSQL's log with log_statement = all): each is a prepared statement, so run with
-- `-M prepared`. Variables: -D shop_id=<shop id> -D order_ids=<the page's order ids
-- as a text array, e.g. {bench-o01000000,bench-o00999999}> (see README.md).

\set lim 21
-- The page: limit + 1 orders, newest first by (created_at, id).
SELECT "orders"."id", "orders"."order_number", "orders"."source", "orders"."status", "orders"."payment_status", "orders"."subtotal_cents", "orders"."discount_amount_cents", "orders"."tax_amount_cents", "orders"."total_cents", "orders"."payment_method", "orders"."paid_at_ms", "orders"."client_id", "orders"."created_at_ms", "orders"."updated_at_ms" FROM "orders" WHERE ("orders"."shop_id" = :shop_id) ORDER BY "orders"."created_at_ms" DESC, "orders"."id" DESC LIMIT :lim;
-- Every item of those orders, in list order.
SELECT "order_items"."id", "order_items"."order_id", "order_items"."product_id", "order_items"."variant_id", "order_items"."product_name", "order_items"."unit_price_cents", "order_items"."quantity", "order_items"."total_cents", "order_items"."tax_rate_hundredths", "order_items"."tax_amount_cents" FROM "order_items" WHERE (("order_items"."shop_id" = :shop_id) AND ("order_items"."order_id" = ANY(:order_ids))) ORDER BY "order_items"."order_id" ASC, "order_items"."position" ASC;
