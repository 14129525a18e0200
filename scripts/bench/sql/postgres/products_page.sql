-- GET /api/v1/products?limit=20 (first page, default filters: active products).
-- pgbench script: the statements one API request sends, as diesel-async sends them (taken from
-- PostgreSQL's log with log_statement = all): each is a prepared statement, so run with
-- `-M prepared`. Variables: -D shop_id=<shop id> -D ids=<the page's product ids as a
-- text array, e.g. {bench-p0000001,bench-p0000002}> (see README.md).

\set active true
\set lim 21
-- The page: limit + 1 products, by id, with their category and brand names.
SELECT "products"."id", "products"."shop_id", "products"."name", "products"."product_type", "products"."ean", "products"."sku", "products"."price_cents", "products"."list_price_cents", "products"."compare_at_price_cents", "products"."promo_active", "products"."tax_rate_hundredths", "products"."active", "products"."track_stock", "products"."tags", "products"."photos", "products"."category_id", "products"."brand_id", '', "products"."created_at_ms", "products"."updated_at_ms", "categories"."name", "brands"."name" FROM (("products" LEFT OUTER JOIN "categories" ON (("categories"."id" = "products"."category_id") AND ("categories"."shop_id" = "products"."shop_id"))) LEFT OUTER JOIN "brands" ON (("brands"."id" = "products"."brand_id") AND ("brands"."shop_id" = "products"."shop_id"))) WHERE (("products"."shop_id" = :shop_id) AND ("products"."active" = :active)) ORDER BY "products"."id" ASC LIMIT :lim;
-- Every variant of those products, in display order.
SELECT "variants"."id", "variants"."shop_id", "variants"."product_id", "variants"."label", "variants"."sku", "variants"."barcode", "variants"."swatch_color", "variants"."price_cents", "variants"."stock", "variants"."low_stock_threshold", "variants"."is_default", "variants"."active", "variants"."track_stock", "variants"."position", '' FROM "variants" WHERE (("variants"."shop_id" = :shop_id) AND ("variants"."product_id" = ANY(:ids))) ORDER BY "variants"."product_id" ASC, "variants"."position" ASC, "variants"."id" ASC;
