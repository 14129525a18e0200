-- Back to the trigram index of 2026-11-21-120000_search_indexes, with the short pending list of
-- 2026-11-22-000000_search_indexes_short_pending_list.
DROP TRIGGER product_search_suffixes_after_update ON products;
DROP TRIGGER product_search_suffixes_after_delete ON products;
DROP TRIGGER product_search_suffixes_after_insert ON products;
DROP FUNCTION product_search_suffixes_after_update();
DROP FUNCTION product_search_suffixes_after_delete();
DROP FUNCTION product_search_suffixes_after_insert();
DROP FUNCTION product_search_suffixes_of(TEXT);
DROP TABLE product_search_suffixes;

CREATE INDEX products_search_text_trgm ON products USING gin (search_text gin_trgm_ops)
WITH (gin_pending_list_limit = 256);
