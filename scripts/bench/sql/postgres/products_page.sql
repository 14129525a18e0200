-- GET /api/v1/products?limit=20 (first page, default filters: active products).
-- pgbench script: the one statement the API request sends, as diesel-async sends it (taken from
-- PostgreSQL's log with log_statement = all): a prepared statement, so run with `-M prepared`.
-- Variables: -D shop_id=<shop id> (see README.md). The two '' are placeholder columns the
-- application binds as text parameters ($1, $2).

\set active true
\set lim 21
-- The page's limit + 1 active products by id (the subquery), each with its category and brand
-- names and one row per variant, in display order.
SELECT "products"."id", "products"."shop_id", "products"."name", "products"."product_type", "products"."ean", "products"."sku", "products"."price_cents", "products"."list_price_cents", "products"."compare_at_price_cents", "products"."promo_active", "products"."tax_rate_hundredths", "products"."active", "products"."track_stock", "products"."tags", "products"."photos", "products"."category_id", "products"."brand_id", '', "products"."created_at_ms", "products"."updated_at_ms", "categories"."name", "brands"."name", "variants"."id", "variants"."shop_id", "variants"."product_id", "variants"."label", "variants"."sku", "variants"."barcode", "variants"."swatch_color", "variants"."price_cents", "variants"."stock", "variants"."low_stock_threshold", "variants"."is_default", "variants"."active", "variants"."track_stock", "variants"."position", '' FROM ((("products" LEFT OUTER JOIN "categories" ON (("categories"."id" = "products"."category_id") AND ("categories"."shop_id" = "products"."shop_id"))) LEFT OUTER JOIN "brands" ON (("brands"."id" = "products"."brand_id") AND ("brands"."shop_id" = "products"."shop_id"))) LEFT OUTER JOIN "variants" ON (("variants"."product_id" = "products"."id") AND ("variants"."shop_id" = "products"."shop_id"))) WHERE (("products"."shop_id" = :shop_id) AND ("products"."id" = ANY(SELECT "products"."id" FROM "products" WHERE (("products"."shop_id" = :shop_id) AND ("products"."active" = :active)) ORDER BY "products"."id" ASC LIMIT :lim))) ORDER BY "products"."id" ASC, "variants"."position" ASC, "variants"."id" ASC;
