-- The query plans of the list and search requests (SQLite): EXPLAIN QUERY PLAN of each
-- statement as diesel sends it (taken from diesel's instrumentation), with named parameters.
-- One statement per `-- name:` block, each ending with `;` at the end of a line. The `-- param`
-- lines give each parameter's value for the dataset of dataset.sql; the integers are integers.
-- Where the application binds a list of ids (a page's variants or items, a search's
-- candidates), it binds one JSON array, unpacked by json_each (crates/persistence/src/sql/one_of.rs);
-- the arrays here hold three ids where the page has 21: the plan is the same.
-- A term of 3+ characters (crates/persistence/src/catalogue/search.rs) first looks for its entry
-- past the first probe_offset in the suffix index (`products_q_*_index_probe`, from the term's
-- first 16 characters to their successor). If there is none, it reads the term's entries
-- (`products_q_rare_entries`), whose product ids become `rare_ids_json` in
-- `products_q_rare_page`; a term with more entries walks the list with LIKE alone
-- (`products_q_common_page`), as does a 2-character term.
-- deep_at and deep_id are the 500,000th order, newest first:
--   SELECT created_at_ms, id FROM orders WHERE shop_id = :shop_id
--   ORDER BY created_at_ms DESC, id DESC LIMIT 1 OFFSET 499999
-- param shop_id = shop-bench
-- param active = 1
-- param tracked = 1
-- param lim = 21
-- param stock_lim = 51
-- param escape = \
-- param one = 1
-- param probe_offset = 1050
-- param product_ids_json = ["bench-p0000001","bench-p0000002","bench-p0000003"]
-- param product_after = bench-p0050001
-- param rare_low = ref-0054321
-- param rare_high = ref-0054322
-- param rare_like = %ref-0054321%
-- param rare_ids_json = ["bench-p0054321"]
-- param common_low = laine
-- param common_high = lainf
-- param common_like = %laine%
-- param short_like = %ro%
-- param order_ids_json = ["bench-o01000000","bench-o00999999","bench-o00999998"]
-- param deep_at = 1715000000000
-- param deep_id = bench-o00500001
-- param status = ready
-- param client_id = bench-c0100000
-- param client_like = %martin 1234%
-- param phone_like = %6000012%

-- name: products_first_page
EXPLAIN QUERY PLAN SELECT "products"."id", "products"."shop_id", "products"."name", "products"."product_type", "products"."ean", "products"."sku", "products"."price_cents", "products"."list_price_cents", "products"."compare_at_price_cents", "products"."promo_active", "products"."tax_rate_hundredths", "products"."active", "products"."track_stock", "products"."tags", "products"."photos", "products"."category_id", "products"."brand_id", '', "products"."created_at_ms", "products"."updated_at_ms", "categories"."name", "brands"."name" FROM (("products" LEFT OUTER JOIN "categories" ON (("categories"."id" = "products"."category_id") AND ("categories"."shop_id" = "products"."shop_id"))) LEFT OUTER JOIN "brands" ON (("brands"."id" = "products"."brand_id") AND ("brands"."shop_id" = "products"."shop_id"))) WHERE (("products"."shop_id" = :shop_id) AND ("products"."active" = :active)) ORDER BY "products"."id" ASC LIMIT :lim;

-- name: products_first_page_variants
EXPLAIN QUERY PLAN SELECT "variants"."id", "variants"."shop_id", "variants"."product_id", "variants"."label", "variants"."sku", "variants"."barcode", "variants"."swatch_color", "variants"."price_cents", "variants"."stock", "variants"."low_stock_threshold", "variants"."is_default", "variants"."active", "variants"."track_stock", "variants"."position", '' FROM "variants" WHERE (("variants"."shop_id" = :shop_id) AND ("variants"."product_id" IN (SELECT value FROM json_each(:product_ids_json)))) ORDER BY "variants"."product_id" ASC, "variants"."position" ASC, "variants"."id" ASC;

-- name: products_after_cursor
EXPLAIN QUERY PLAN SELECT "products"."id", "products"."shop_id", "products"."name", "products"."product_type", "products"."ean", "products"."sku", "products"."price_cents", "products"."list_price_cents", "products"."compare_at_price_cents", "products"."promo_active", "products"."tax_rate_hundredths", "products"."active", "products"."track_stock", "products"."tags", "products"."photos", "products"."category_id", "products"."brand_id", '', "products"."created_at_ms", "products"."updated_at_ms", "categories"."name", "brands"."name" FROM (("products" LEFT OUTER JOIN "categories" ON (("categories"."id" = "products"."category_id") AND ("categories"."shop_id" = "products"."shop_id"))) LEFT OUTER JOIN "brands" ON (("brands"."id" = "products"."brand_id") AND ("brands"."shop_id" = "products"."shop_id"))) WHERE ((("products"."shop_id" = :shop_id) AND ("products"."id" > :product_after)) AND ("products"."active" = :active)) ORDER BY "products"."id" ASC LIMIT :lim;

-- name: products_q_rare_index_probe
EXPLAIN QUERY PLAN SELECT "product_search_suffixes"."product_id" FROM "product_search_suffixes" WHERE ((("product_search_suffixes"."shop_id" = :shop_id) AND ("product_search_suffixes"."suffix" >= :rare_low)) AND ("product_search_suffixes"."suffix" < :rare_high)) LIMIT :one OFFSET :probe_offset;

-- name: products_q_rare_entries
EXPLAIN QUERY PLAN SELECT "product_search_suffixes"."product_id" FROM "product_search_suffixes" WHERE ((("product_search_suffixes"."shop_id" = :shop_id) AND ("product_search_suffixes"."suffix" >= :rare_low)) AND ("product_search_suffixes"."suffix" < :rare_high));

-- name: products_q_rare_page
EXPLAIN QUERY PLAN SELECT "products"."id", "products"."shop_id", "products"."name", "products"."product_type", "products"."ean", "products"."sku", "products"."price_cents", "products"."list_price_cents", "products"."compare_at_price_cents", "products"."promo_active", "products"."tax_rate_hundredths", "products"."active", "products"."track_stock", "products"."tags", "products"."photos", "products"."category_id", "products"."brand_id", '', "products"."created_at_ms", "products"."updated_at_ms", "categories"."name", "brands"."name" FROM (("products" LEFT OUTER JOIN "categories" ON (("categories"."id" = "products"."category_id") AND ("categories"."shop_id" = "products"."shop_id"))) LEFT OUTER JOIN "brands" ON (("brands"."id" = "products"."brand_id") AND ("brands"."shop_id" = "products"."shop_id"))) WHERE (((("products"."shop_id" = :shop_id) AND ("products"."search_text" LIKE :rare_like ESCAPE :escape)) AND ("products"."id" IN (SELECT value FROM json_each(:rare_ids_json)))) AND ("products"."active" = :active)) ORDER BY "products"."id" ASC LIMIT :lim;

-- name: products_q_common_index_probe
EXPLAIN QUERY PLAN SELECT "product_search_suffixes"."product_id" FROM "product_search_suffixes" WHERE ((("product_search_suffixes"."shop_id" = :shop_id) AND ("product_search_suffixes"."suffix" >= :common_low)) AND ("product_search_suffixes"."suffix" < :common_high)) LIMIT :one OFFSET :probe_offset;

-- name: products_q_common_page
EXPLAIN QUERY PLAN SELECT "products"."id", "products"."shop_id", "products"."name", "products"."product_type", "products"."ean", "products"."sku", "products"."price_cents", "products"."list_price_cents", "products"."compare_at_price_cents", "products"."promo_active", "products"."tax_rate_hundredths", "products"."active", "products"."track_stock", "products"."tags", "products"."photos", "products"."category_id", "products"."brand_id", '', "products"."created_at_ms", "products"."updated_at_ms", "categories"."name", "brands"."name" FROM (("products" LEFT OUTER JOIN "categories" ON (("categories"."id" = "products"."category_id") AND ("categories"."shop_id" = "products"."shop_id"))) LEFT OUTER JOIN "brands" ON (("brands"."id" = "products"."brand_id") AND ("brands"."shop_id" = "products"."shop_id"))) WHERE ((("products"."shop_id" = :shop_id) AND ("products"."search_text" LIKE :common_like ESCAPE :escape)) AND ("products"."active" = :active)) ORDER BY "products"."id" ASC LIMIT :lim;

-- name: products_q_short_page
EXPLAIN QUERY PLAN SELECT "products"."id", "products"."shop_id", "products"."name", "products"."product_type", "products"."ean", "products"."sku", "products"."price_cents", "products"."list_price_cents", "products"."compare_at_price_cents", "products"."promo_active", "products"."tax_rate_hundredths", "products"."active", "products"."track_stock", "products"."tags", "products"."photos", "products"."category_id", "products"."brand_id", '', "products"."created_at_ms", "products"."updated_at_ms", "categories"."name", "brands"."name" FROM (("products" LEFT OUTER JOIN "categories" ON (("categories"."id" = "products"."category_id") AND ("categories"."shop_id" = "products"."shop_id"))) LEFT OUTER JOIN "brands" ON (("brands"."id" = "products"."brand_id") AND ("brands"."shop_id" = "products"."shop_id"))) WHERE ((("products"."shop_id" = :shop_id) AND ("products"."search_text" LIKE :short_like ESCAPE :escape)) AND ("products"."active" = :active)) ORDER BY "products"."id" ASC LIMIT :lim;

-- name: orders_first_page
EXPLAIN QUERY PLAN SELECT "orders"."id", "orders"."order_number", "orders"."source", "orders"."status", "orders"."payment_status", "orders"."subtotal_cents", "orders"."discount_amount_cents", "orders"."tax_amount_cents", "orders"."total_cents", "orders"."payment_method", "orders"."paid_at_ms", "orders"."client_id", "orders"."created_at_ms", "orders"."updated_at_ms" FROM "orders" WHERE ("orders"."shop_id" = :shop_id) ORDER BY "orders"."created_at_ms" DESC, "orders"."id" DESC LIMIT :lim;

-- name: orders_first_page_items
EXPLAIN QUERY PLAN SELECT "order_items"."id", "order_items"."order_id", "order_items"."product_id", "order_items"."variant_id", "order_items"."product_name", "order_items"."unit_price_cents", "order_items"."quantity", "order_items"."total_cents", "order_items"."tax_rate_hundredths", "order_items"."tax_amount_cents" FROM "order_items" WHERE (("order_items"."shop_id" = :shop_id) AND ("order_items"."order_id" IN (SELECT value FROM json_each(:order_ids_json)))) ORDER BY "order_items"."order_id" ASC, "order_items"."position" ASC;

-- name: orders_500000_deep
EXPLAIN QUERY PLAN SELECT "orders"."id", "orders"."order_number", "orders"."source", "orders"."status", "orders"."payment_status", "orders"."subtotal_cents", "orders"."discount_amount_cents", "orders"."tax_amount_cents", "orders"."total_cents", "orders"."payment_method", "orders"."paid_at_ms", "orders"."client_id", "orders"."created_at_ms", "orders"."updated_at_ms" FROM "orders" WHERE ((("orders"."shop_id" = :shop_id) AND ("orders"."created_at_ms" <= :deep_at)) AND (("orders"."created_at_ms" < :deep_at) OR (("orders"."created_at_ms" = :deep_at) AND ("orders"."id" < :deep_id)))) ORDER BY "orders"."created_at_ms" DESC, "orders"."id" DESC LIMIT :lim;

-- name: orders_status
EXPLAIN QUERY PLAN SELECT "orders"."id", "orders"."order_number", "orders"."source", "orders"."status", "orders"."payment_status", "orders"."subtotal_cents", "orders"."discount_amount_cents", "orders"."tax_amount_cents", "orders"."total_cents", "orders"."payment_method", "orders"."paid_at_ms", "orders"."client_id", "orders"."created_at_ms", "orders"."updated_at_ms" FROM "orders" WHERE (("orders"."shop_id" = :shop_id) AND ("orders"."status" = :status)) ORDER BY "orders"."created_at_ms" DESC, "orders"."id" DESC LIMIT :lim;

-- name: orders_status_500000_deep
EXPLAIN QUERY PLAN SELECT "orders"."id", "orders"."order_number", "orders"."source", "orders"."status", "orders"."payment_status", "orders"."subtotal_cents", "orders"."discount_amount_cents", "orders"."tax_amount_cents", "orders"."total_cents", "orders"."payment_method", "orders"."paid_at_ms", "orders"."client_id", "orders"."created_at_ms", "orders"."updated_at_ms" FROM "orders" WHERE (((("orders"."shop_id" = :shop_id) AND ("orders"."status" = :status)) AND ("orders"."created_at_ms" <= :deep_at)) AND (("orders"."created_at_ms" < :deep_at) OR (("orders"."created_at_ms" = :deep_at) AND ("orders"."id" < :deep_id)))) ORDER BY "orders"."created_at_ms" DESC, "orders"."id" DESC LIMIT :lim;

-- name: orders_client
EXPLAIN QUERY PLAN SELECT "orders"."id", "orders"."order_number", "orders"."source", "orders"."status", "orders"."payment_status", "orders"."subtotal_cents", "orders"."discount_amount_cents", "orders"."tax_amount_cents", "orders"."total_cents", "orders"."payment_method", "orders"."paid_at_ms", "orders"."client_id", "orders"."created_at_ms", "orders"."updated_at_ms" FROM "orders" WHERE (("orders"."shop_id" = :shop_id) AND ("orders"."client_id" = :client_id)) ORDER BY "orders"."created_at_ms" DESC, "orders"."id" DESC LIMIT :lim;

-- name: clients_first_page
EXPLAIN QUERY PLAN SELECT "clients"."id", "clients"."shop_id", "clients"."name", "clients"."display_name", "clients"."phone", "clients"."email", "clients"."billing_company", "clients"."billing_vat_number", "clients"."billing_address", "clients"."billing_city", "clients"."billing_postal_code", "clients"."billing_country", "clients"."birth_date", "clients"."points", "clients"."points_expires_at_ms", "clients"."points_lifetime", "clients"."points_all_time", "clients"."tier_achieved_at_ms", "clients"."receipt_by_email", "clients"."tags", "clients"."created_at_ms", "clients"."updated_at_ms" FROM "clients" WHERE ("clients"."shop_id" = :shop_id) ORDER BY "clients"."id" ASC LIMIT :lim;

-- name: clients_q
EXPLAIN QUERY PLAN SELECT "clients"."id", "clients"."shop_id", "clients"."name", "clients"."display_name", "clients"."phone", "clients"."email", "clients"."billing_company", "clients"."billing_vat_number", "clients"."billing_address", "clients"."billing_city", "clients"."billing_postal_code", "clients"."billing_country", "clients"."birth_date", "clients"."points", "clients"."points_expires_at_ms", "clients"."points_lifetime", "clients"."points_all_time", "clients"."tier_achieved_at_ms", "clients"."receipt_by_email", "clients"."tags", "clients"."created_at_ms", "clients"."updated_at_ms" FROM "clients" WHERE (("clients"."shop_id" = :shop_id) AND ("clients"."search_text" LIKE :client_like ESCAPE :escape)) ORDER BY "clients"."id" ASC LIMIT :lim;

-- name: clients_q_phone
EXPLAIN QUERY PLAN SELECT "clients"."id", "clients"."shop_id", "clients"."name", "clients"."display_name", "clients"."phone", "clients"."email", "clients"."billing_company", "clients"."billing_vat_number", "clients"."billing_address", "clients"."billing_city", "clients"."billing_postal_code", "clients"."billing_country", "clients"."birth_date", "clients"."points", "clients"."points_expires_at_ms", "clients"."points_lifetime", "clients"."points_all_time", "clients"."tier_achieved_at_ms", "clients"."receipt_by_email", "clients"."tags", "clients"."created_at_ms", "clients"."updated_at_ms" FROM "clients" WHERE (("clients"."shop_id" = :shop_id) AND (("clients"."search_text" LIKE :client_like ESCAPE :escape) OR ("clients"."phone_digits" LIKE :phone_like ESCAPE :escape))) ORDER BY "clients"."id" ASC LIMIT :lim;

-- name: stock_first_page
EXPLAIN QUERY PLAN SELECT "variants"."id", "variants"."product_id", "products"."name", "variants"."label", "variants"."sku", "variants"."barcode", "variants"."track_stock", "variants"."stock", "variants"."low_stock_threshold", "variants"."active", "products"."active" FROM ("variants" INNER JOIN "products" ON (("products"."id" = "variants"."product_id") AND ("products"."shop_id" = "variants"."shop_id"))) WHERE ("variants"."id" IN (SELECT "variants"."id" FROM "variants" WHERE ((("variants"."shop_id" = :shop_id) AND EXISTS (SELECT "products"."id" FROM "products" WHERE (("products"."id" = "variants"."product_id") AND ("products"."shop_id" = "variants"."shop_id")))) AND ("variants"."track_stock" = :tracked)) ORDER BY "variants"."id" ASC LIMIT :stock_lim)) ORDER BY "variants"."id" ASC;

-- name: stock_q
EXPLAIN QUERY PLAN SELECT "variants"."id", "variants"."product_id", "products"."name", "variants"."label", "variants"."sku", "variants"."barcode", "variants"."track_stock", "variants"."stock", "variants"."low_stock_threshold", "variants"."active", "products"."active" FROM ("variants" INNER JOIN "products" ON (("products"."id" = "variants"."product_id") AND ("products"."shop_id" = "variants"."shop_id"))) WHERE ("variants"."id" IN (SELECT "variants"."id" FROM "variants" WHERE (((("variants"."shop_id" = :shop_id) AND EXISTS (SELECT "products"."id" FROM "products" WHERE (("products"."id" = "variants"."product_id") AND ("products"."shop_id" = "variants"."shop_id")))) AND ("variants"."track_stock" = :tracked)) AND ("variants"."search_text" LIKE :common_like ESCAPE :escape)) ORDER BY "variants"."id" ASC LIMIT :stock_lim)) ORDER BY "variants"."id" ASC;
