-- GET /api/v1/orders?limit=20 (first page, newest first).
-- pgbench script: the one statement the API request sends, as diesel-async sends it (taken from
-- PostgreSQL's log with log_statement = all): a prepared statement, so run with `-M prepared`.
-- Variables: -D shop_id=<shop id> (see README.md).

-- The page's limit + 1 orders newest first by (created_at, id) (the subquery), one row per
-- item, in list order.
SELECT "orders"."id", "orders"."order_number", "orders"."source", "orders"."status", "orders"."payment_status", "orders"."subtotal_cents", "orders"."discount_amount_cents", "orders"."tax_amount_cents", "orders"."total_cents", "orders"."payment_method", "orders"."paid_at_ms", "orders"."client_id", "orders"."created_at_ms", "orders"."updated_at_ms", "order_items"."id", "order_items"."product_id", "order_items"."variant_id", "order_items"."product_name", "order_items"."unit_price_cents", "order_items"."quantity", "order_items"."total_cents", "order_items"."tax_rate_hundredths", "order_items"."tax_amount_cents" FROM ("orders" LEFT OUTER JOIN "order_items" ON (("order_items"."order_id" = "orders"."id") AND ("order_items"."shop_id" = "orders"."shop_id"))) WHERE (("orders"."shop_id" = :shop_id) AND ("orders"."id" IN (SELECT "orders"."id" FROM "orders" WHERE ("orders"."shop_id" = :shop_id) ORDER BY "orders"."created_at_ms" DESC, "orders"."id" DESC LIMIT 21))) ORDER BY "orders"."created_at_ms" DESC, "orders"."id" DESC, "order_items"."position" ASC;
