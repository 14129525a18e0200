-- GET /api/v1/orders/{id} (one order with all its items).
-- pgbench script: the one statement the API request sends, as diesel-async sends it (taken from
-- PostgreSQL's log with log_statement = all): a prepared statement, so run with `-M prepared`.
-- Variables: -D shop_id=<shop id> -D order_id=<the order's id> (see README.md).

-- The order, one row per item, in list order.
SELECT "orders"."id", "orders"."order_number", "orders"."source", "orders"."status", "orders"."payment_status", "orders"."subtotal_cents", "orders"."discount_amount_cents", "orders"."tax_amount_cents", "orders"."total_cents", "orders"."payment_method", "orders"."paid_at_ms", "orders"."client_id", "orders"."created_at_ms", "orders"."updated_at_ms", "order_items"."id", "order_items"."product_id", "order_items"."variant_id", "order_items"."product_name", "order_items"."unit_price_cents", "order_items"."quantity", "order_items"."total_cents", "order_items"."tax_rate_hundredths", "order_items"."tax_amount_cents" FROM ("orders" LEFT OUTER JOIN "order_items" ON (("order_items"."order_id" = "orders"."id") AND ("order_items"."shop_id" = "orders"."shop_id"))) WHERE (("orders"."shop_id" = :shop_id) AND ("orders"."id" = :order_id)) ORDER BY "orders"."created_at_ms" DESC, "orders"."id" DESC, "order_items"."position" ASC;
