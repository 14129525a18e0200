-- The query plans of the list and search requests (PostgreSQL), run with psql:
--   psql -X -v ON_ERROR_STOP=1 -f explain.sql postgres://…/<db>
-- Each statement is the one diesel-async sends (see products_page.sql), with psql variables
-- for its parameters. Every variable has a default for the dataset of dataset.sql; set your own
-- with -v name=value (the cursors and the client are looked up in the data when not given).
-- EXPLAIN ANALYZE plans with the parameters' values, as the server's first five executions of
-- a prepared statement do; for the pages and the reads by id, the plan it keeps afterwards is
-- the same (see README.md).

\if :{?shop_id} \else \set shop_id shop-bench \endif
\if :{?rare_term} \else \set rare_term ref-0054321 \endif
\if :{?common_term} \else \set common_term laine \endif
\if :{?short_term} \else \set short_term ro \endif
\if :{?client_term} \else \set client_term 'martin 1234' \endif
\if :{?phone_digits} \else \set phone_digits 6000012 \endif
\if :{?status} \else \set status ready \endif
\set one 1
\set active true
\set tracked true
\set lim 21
\set stock_lim 51
\set escape '\\'
\set rare_like '%' :rare_term '%'
\set common_like '%' :common_term '%'
\set short_like '%' :short_term '%'
\set probe_offset 1050
-- The suffix index's range for a term (crates/persistence/src/catalogue/search.rs): its first 16
-- characters, up to those with the last one's successor.
SELECT low AS rare_low, left(low, -1) || chr(ascii(right(low, 1)) + 1) AS rare_high
FROM (SELECT left(:'rare_term', 16) AS low) term \gset
SELECT low AS common_low, left(low, -1) || chr(ascii(right(low, 1)) + 1) AS common_high
FROM (SELECT left(:'common_term', 16) AS low) term \gset
\set client_like '%' :client_term '%'
\set phone_like '%' :phone_digits '%'
-- Where a cursor stands: halfway through the products, 500,000 orders deep.
\if :{?product_after} \else
SELECT id AS product_after FROM products WHERE shop_id = :'shop_id' AND active ORDER BY id
OFFSET (SELECT count(*) / 2 FROM products WHERE shop_id = :'shop_id' AND active) LIMIT 1 \gset
\endif
\if :{?deep_at} \else
SELECT created_at_ms AS deep_at, id AS deep_id FROM orders WHERE shop_id = :'shop_id'
ORDER BY created_at_ms DESC, id DESC OFFSET 499999 LIMIT 1 \gset
\endif
\if :{?client_id} \else
SELECT client_id FROM orders WHERE shop_id = :'shop_id' AND client_id IS NOT NULL
ORDER BY created_at_ms DESC, id DESC LIMIT 1 \gset
\endif
SELECT array_agg(id ORDER BY id)::text AS ids FROM (
    SELECT id FROM products WHERE shop_id = :'shop_id' AND active ORDER BY id LIMIT 21) page \gset
SELECT array_agg(id)::text AS order_ids FROM (
    SELECT id FROM orders WHERE shop_id = :'shop_id'
    ORDER BY created_at_ms DESC, id DESC LIMIT 21) page \gset

\echo '== products: first page'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "products"."id", "products"."shop_id", "products"."name", "products"."product_type", "products"."ean", "products"."sku", "products"."price_cents", "products"."list_price_cents", "products"."compare_at_price_cents", "products"."promo_active", "products"."tax_rate_hundredths", "products"."active", "products"."track_stock", "products"."tags", "products"."photos", "products"."category_id", "products"."brand_id", '', "products"."created_at_ms", "products"."updated_at_ms", "categories"."name", "brands"."name" FROM (("products" LEFT OUTER JOIN "categories" ON (("categories"."id" = "products"."category_id") AND ("categories"."shop_id" = "products"."shop_id"))) LEFT OUTER JOIN "brands" ON (("brands"."id" = "products"."brand_id") AND ("brands"."shop_id" = "products"."shop_id"))) WHERE (("products"."shop_id" = :'shop_id') AND ("products"."active" = :active)) ORDER BY "products"."id" ASC LIMIT :lim;
\echo '== products: the first page''s variants'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "variants"."id", "variants"."shop_id", "variants"."product_id", "variants"."label", "variants"."sku", "variants"."barcode", "variants"."swatch_color", "variants"."price_cents", "variants"."stock", "variants"."low_stock_threshold", "variants"."is_default", "variants"."active", "variants"."track_stock", "variants"."position", '' FROM "variants" WHERE (("variants"."shop_id" = :'shop_id') AND ("variants"."product_id" = ANY(:'ids'))) ORDER BY "variants"."product_id" ASC, "variants"."position" ASC, "variants"."id" ASC;
\echo '== products: after a cursor halfway'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "products"."id", "products"."shop_id", "products"."name", "products"."product_type", "products"."ean", "products"."sku", "products"."price_cents", "products"."list_price_cents", "products"."compare_at_price_cents", "products"."promo_active", "products"."tax_rate_hundredths", "products"."active", "products"."track_stock", "products"."tags", "products"."photos", "products"."category_id", "products"."brand_id", '', "products"."created_at_ms", "products"."updated_at_ms", "categories"."name", "brands"."name" FROM (("products" LEFT OUTER JOIN "categories" ON (("categories"."id" = "products"."category_id") AND ("categories"."shop_id" = "products"."shop_id"))) LEFT OUTER JOIN "brands" ON (("brands"."id" = "products"."brand_id") AND ("brands"."shop_id" = "products"."shop_id"))) WHERE ((("products"."shop_id" = :'shop_id') AND ("products"."id" > :'product_after')) AND ("products"."active" = :active)) ORDER BY "products"."id" ASC LIMIT :lim;
\echo '== products: q, rare term: an entry past the probe''s (none), then its entries'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "product_search_suffixes"."product_id" FROM "product_search_suffixes" WHERE ((("product_search_suffixes"."shop_id" = :'shop_id') AND ("product_search_suffixes"."suffix" >= :'rare_low')) AND ("product_search_suffixes"."suffix" < :'rare_high')) LIMIT 1 OFFSET :probe_offset;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "product_search_suffixes"."product_id" FROM "product_search_suffixes" WHERE ((("product_search_suffixes"."shop_id" = :'shop_id') AND ("product_search_suffixes"."suffix" >= :'rare_low')) AND ("product_search_suffixes"."suffix" < :'rare_high'));
SELECT coalesce(array_agg(DISTINCT product_id), '{}')::text AS rare_ids FROM (
    SELECT product_id FROM product_search_suffixes WHERE shop_id = :'shop_id'
    AND suffix >= :'rare_low' AND suffix < :'rare_high') probe \gset
\echo '== products: q, rare term: the page among those products'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "products"."id", "products"."shop_id", "products"."name", "products"."product_type", "products"."ean", "products"."sku", "products"."price_cents", "products"."list_price_cents", "products"."compare_at_price_cents", "products"."promo_active", "products"."tax_rate_hundredths", "products"."active", "products"."track_stock", "products"."tags", "products"."photos", "products"."category_id", "products"."brand_id", '', "products"."created_at_ms", "products"."updated_at_ms", "categories"."name", "brands"."name" FROM (("products" LEFT OUTER JOIN "categories" ON (("categories"."id" = "products"."category_id") AND ("categories"."shop_id" = "products"."shop_id"))) LEFT OUTER JOIN "brands" ON (("brands"."id" = "products"."brand_id") AND ("brands"."shop_id" = "products"."shop_id"))) WHERE (((("products"."shop_id" = :'shop_id') AND ("products"."search_text" LIKE :'rare_like' ESCAPE :'escape')) AND ("products"."id" = ANY(:'rare_ids'))) AND ("products"."active" = :active)) ORDER BY "products"."id" ASC LIMIT :lim;
\echo '== products: q, common term: an entry past the probe''s (there is one)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "product_search_suffixes"."product_id" FROM "product_search_suffixes" WHERE ((("product_search_suffixes"."shop_id" = :'shop_id') AND ("product_search_suffixes"."suffix" >= :'common_low')) AND ("product_search_suffixes"."suffix" < :'common_high')) LIMIT 1 OFFSET :probe_offset;
\echo '== products: q, common term'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "products"."id", "products"."shop_id", "products"."name", "products"."product_type", "products"."ean", "products"."sku", "products"."price_cents", "products"."list_price_cents", "products"."compare_at_price_cents", "products"."promo_active", "products"."tax_rate_hundredths", "products"."active", "products"."track_stock", "products"."tags", "products"."photos", "products"."category_id", "products"."brand_id", '', "products"."created_at_ms", "products"."updated_at_ms", "categories"."name", "brands"."name" FROM (("products" LEFT OUTER JOIN "categories" ON (("categories"."id" = "products"."category_id") AND ("categories"."shop_id" = "products"."shop_id"))) LEFT OUTER JOIN "brands" ON (("brands"."id" = "products"."brand_id") AND ("brands"."shop_id" = "products"."shop_id"))) WHERE ((("products"."shop_id" = :'shop_id') AND ("products"."search_text" LIKE :'common_like' ESCAPE :'escape')) AND ("products"."active" = :active)) ORDER BY "products"."id" ASC LIMIT :lim;
\echo '== products: q, two characters'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "products"."id", "products"."shop_id", "products"."name", "products"."product_type", "products"."ean", "products"."sku", "products"."price_cents", "products"."list_price_cents", "products"."compare_at_price_cents", "products"."promo_active", "products"."tax_rate_hundredths", "products"."active", "products"."track_stock", "products"."tags", "products"."photos", "products"."category_id", "products"."brand_id", '', "products"."created_at_ms", "products"."updated_at_ms", "categories"."name", "brands"."name" FROM (("products" LEFT OUTER JOIN "categories" ON (("categories"."id" = "products"."category_id") AND ("categories"."shop_id" = "products"."shop_id"))) LEFT OUTER JOIN "brands" ON (("brands"."id" = "products"."brand_id") AND ("brands"."shop_id" = "products"."shop_id"))) WHERE ((("products"."shop_id" = :'shop_id') AND ("products"."search_text" LIKE :'short_like' ESCAPE :'escape')) AND ("products"."active" = :active)) ORDER BY "products"."id" ASC LIMIT :lim;
\echo '== orders: first page'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "orders"."id", "orders"."order_number", "orders"."source", "orders"."status", "orders"."payment_status", "orders"."subtotal_cents", "orders"."discount_amount_cents", "orders"."tax_amount_cents", "orders"."total_cents", "orders"."payment_method", "orders"."paid_at_ms", "orders"."client_id", "orders"."created_at_ms", "orders"."updated_at_ms" FROM "orders" WHERE ("orders"."shop_id" = :'shop_id') ORDER BY "orders"."created_at_ms" DESC, "orders"."id" DESC LIMIT :lim;
\echo '== orders: the first page''s items'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "order_items"."id", "order_items"."order_id", "order_items"."product_id", "order_items"."variant_id", "order_items"."product_name", "order_items"."unit_price_cents", "order_items"."quantity", "order_items"."total_cents", "order_items"."tax_rate_hundredths", "order_items"."tax_amount_cents" FROM "order_items" WHERE (("order_items"."shop_id" = :'shop_id') AND ("order_items"."order_id" = ANY(:'order_ids'))) ORDER BY "order_items"."order_id" ASC, "order_items"."position" ASC;
\echo '== orders: 500,000 deep'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "orders"."id", "orders"."order_number", "orders"."source", "orders"."status", "orders"."payment_status", "orders"."subtotal_cents", "orders"."discount_amount_cents", "orders"."tax_amount_cents", "orders"."total_cents", "orders"."payment_method", "orders"."paid_at_ms", "orders"."client_id", "orders"."created_at_ms", "orders"."updated_at_ms" FROM "orders" WHERE ((("orders"."shop_id" = :'shop_id') AND ("orders"."created_at_ms" <= :deep_at)) AND (("orders"."created_at_ms" < :deep_at) OR (("orders"."created_at_ms" = :deep_at) AND ("orders"."id" < :'deep_id')))) ORDER BY "orders"."created_at_ms" DESC, "orders"."id" DESC LIMIT :lim;
\echo '== orders: status'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "orders"."id", "orders"."order_number", "orders"."source", "orders"."status", "orders"."payment_status", "orders"."subtotal_cents", "orders"."discount_amount_cents", "orders"."tax_amount_cents", "orders"."total_cents", "orders"."payment_method", "orders"."paid_at_ms", "orders"."client_id", "orders"."created_at_ms", "orders"."updated_at_ms" FROM "orders" WHERE (("orders"."shop_id" = :'shop_id') AND ("orders"."status" = :'status')) ORDER BY "orders"."created_at_ms" DESC, "orders"."id" DESC LIMIT :lim;
\echo '== orders: clientId'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "orders"."id", "orders"."order_number", "orders"."source", "orders"."status", "orders"."payment_status", "orders"."subtotal_cents", "orders"."discount_amount_cents", "orders"."tax_amount_cents", "orders"."total_cents", "orders"."payment_method", "orders"."paid_at_ms", "orders"."client_id", "orders"."created_at_ms", "orders"."updated_at_ms" FROM "orders" WHERE (("orders"."shop_id" = :'shop_id') AND ("orders"."client_id" = :'client_id')) ORDER BY "orders"."created_at_ms" DESC, "orders"."id" DESC LIMIT :lim;
\echo '== clients: first page'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "clients"."id", "clients"."shop_id", "clients"."name", "clients"."display_name", "clients"."phone", "clients"."email", "clients"."billing_company", "clients"."billing_vat_number", "clients"."billing_address", "clients"."billing_city", "clients"."billing_postal_code", "clients"."billing_country", "clients"."birth_date", "clients"."points", "clients"."points_expires_at_ms", "clients"."points_lifetime", "clients"."points_all_time", "clients"."tier_achieved_at_ms", "clients"."receipt_by_email", "clients"."tags", "clients"."created_at_ms", "clients"."updated_at_ms" FROM "clients" WHERE ("clients"."shop_id" = :'shop_id') ORDER BY "clients"."id" ASC LIMIT :lim;
\echo '== clients: q'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "clients"."id", "clients"."shop_id", "clients"."name", "clients"."display_name", "clients"."phone", "clients"."email", "clients"."billing_company", "clients"."billing_vat_number", "clients"."billing_address", "clients"."billing_city", "clients"."billing_postal_code", "clients"."billing_country", "clients"."birth_date", "clients"."points", "clients"."points_expires_at_ms", "clients"."points_lifetime", "clients"."points_all_time", "clients"."tier_achieved_at_ms", "clients"."receipt_by_email", "clients"."tags", "clients"."created_at_ms", "clients"."updated_at_ms" FROM "clients" WHERE (("clients"."shop_id" = :'shop_id') AND ("clients"."search_text" LIKE :'client_like' ESCAPE :'escape')) ORDER BY "clients"."id" ASC LIMIT :lim;
\echo '== clients: q, phone-like'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "clients"."id", "clients"."shop_id", "clients"."name", "clients"."display_name", "clients"."phone", "clients"."email", "clients"."billing_company", "clients"."billing_vat_number", "clients"."billing_address", "clients"."billing_city", "clients"."billing_postal_code", "clients"."billing_country", "clients"."birth_date", "clients"."points", "clients"."points_expires_at_ms", "clients"."points_lifetime", "clients"."points_all_time", "clients"."tier_achieved_at_ms", "clients"."receipt_by_email", "clients"."tags", "clients"."created_at_ms", "clients"."updated_at_ms" FROM "clients" WHERE (("clients"."shop_id" = :'shop_id') AND (("clients"."search_text" LIKE :'client_like' ESCAPE :'escape') OR ("clients"."phone_digits" LIKE :'phone_like' ESCAPE :'escape'))) ORDER BY "clients"."id" ASC LIMIT :lim;
\echo '== stock: first page'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "variants"."id", "variants"."product_id", "products"."name", "variants"."label", "variants"."sku", "variants"."barcode", "variants"."track_stock", "variants"."stock", "variants"."low_stock_threshold", "variants"."active", "products"."active" FROM ("variants" INNER JOIN "products" ON (("products"."id" = "variants"."product_id") AND ("products"."shop_id" = "variants"."shop_id"))) WHERE ("variants"."id" = ANY(SELECT "variants"."id" FROM "variants" WHERE ((("variants"."shop_id" = :'shop_id') AND EXISTS (SELECT "products"."id" FROM "products" WHERE (("products"."id" = "variants"."product_id") AND ("products"."shop_id" = "variants"."shop_id")))) AND ("variants"."track_stock" = :tracked)) ORDER BY "variants"."id" ASC LIMIT :stock_lim)) ORDER BY "variants"."id" ASC;
\echo '== stock: q, common term'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT "variants"."id", "variants"."product_id", "products"."name", "variants"."label", "variants"."sku", "variants"."barcode", "variants"."track_stock", "variants"."stock", "variants"."low_stock_threshold", "variants"."active", "products"."active" FROM ("variants" INNER JOIN "products" ON (("products"."id" = "variants"."product_id") AND ("products"."shop_id" = "variants"."shop_id"))) WHERE ("variants"."id" = ANY(SELECT "variants"."id" FROM "variants" WHERE (((("variants"."shop_id" = :'shop_id') AND EXISTS (SELECT "products"."id" FROM "products" WHERE (("products"."id" = "variants"."product_id") AND ("products"."shop_id" = "variants"."shop_id")))) AND ("variants"."track_stock" = :tracked)) AND ("variants"."search_text" LIKE :'common_like' ESCAPE :'escape')) ORDER BY "variants"."id" ASC LIMIT :stock_lim)) ORDER BY "variants"."id" ASC;
