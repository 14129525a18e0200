-- SQLite alone (PostgreSQL's triggers use ON CONFLICT DO NOTHING, which no outer statement
-- overrides). An UPSERT's conflict handling overrides the `INSERT OR IGNORE` of the triggers
-- it fires: when a product's text changed through an upsert (an import, an API v2 write) and
-- its new suffixes held one twice (`000` of `MLU-000` and of `3760000000000`), or one the
-- old text kept, the write failed on the suffixes' primary key. The triggers now insert each
-- new suffix once, and only when absent, so that no conflict is left to resolve.
DROP TRIGGER product_search_suffixes_after_insert;
DROP TRIGGER product_search_suffixes_after_update;

CREATE TRIGGER product_search_suffixes_after_insert AFTER INSERT ON products
BEGIN
    INSERT OR IGNORE INTO product_search_suffixes (shop_id, suffix, product_id)
    WITH RECURSIVE
        start (n) AS (
            SELECT 1 UNION ALL SELECT n + 1 FROM start WHERE n < length(new.search_text) - 2
        ),
        line (rest, chars) AS (
            SELECT substr(new.search_text, n),
                   CASE instr(substr(new.search_text, n), char(10))
                       WHEN 0 THEN length(substr(new.search_text, n))
                       ELSE instr(substr(new.search_text, n), char(10)) - 1
                   END
            FROM start
        ),
        suffix (value) AS (
            SELECT DISTINCT substr(rest, 1, min(chars, 16)) FROM line WHERE chars >= 3
        )
    SELECT new.shop_id, value, new.id FROM suffix
    WHERE NOT EXISTS (
        SELECT 1 FROM product_search_suffixes held
        WHERE held.shop_id = new.shop_id AND held.suffix = suffix.value
          AND held.product_id = new.id
    );
END;

-- The old entries go first, then the new ones, so a suffix both texts hold is kept.
CREATE TRIGGER product_search_suffixes_after_update AFTER UPDATE OF id, shop_id, search_text
ON products
WHEN old.id IS NOT new.id OR old.shop_id IS NOT new.shop_id
    OR old.search_text IS NOT new.search_text
BEGIN
    DELETE FROM product_search_suffixes
    WHERE shop_id = old.shop_id AND product_id = old.id AND suffix IN (
        WITH RECURSIVE
            start (n) AS (
                SELECT 1 UNION ALL SELECT n + 1 FROM start WHERE n < length(old.search_text) - 2
            ),
            line (rest, chars) AS (
                SELECT substr(old.search_text, n),
                       CASE instr(substr(old.search_text, n), char(10))
                           WHEN 0 THEN length(substr(old.search_text, n))
                           ELSE instr(substr(old.search_text, n), char(10)) - 1
                       END
                FROM start
            )
        SELECT substr(rest, 1, min(chars, 16)) FROM line WHERE chars >= 3
    );
    INSERT OR IGNORE INTO product_search_suffixes (shop_id, suffix, product_id)
    WITH RECURSIVE
        start (n) AS (
            SELECT 1 UNION ALL SELECT n + 1 FROM start WHERE n < length(new.search_text) - 2
        ),
        line (rest, chars) AS (
            SELECT substr(new.search_text, n),
                   CASE instr(substr(new.search_text, n), char(10))
                       WHEN 0 THEN length(substr(new.search_text, n))
                       ELSE instr(substr(new.search_text, n), char(10)) - 1
                   END
            FROM start
        ),
        suffix (value) AS (
            SELECT DISTINCT substr(rest, 1, min(chars, 16)) FROM line WHERE chars >= 3
        )
    SELECT new.shop_id, value, new.id FROM suffix
    WHERE NOT EXISTS (
        SELECT 1 FROM product_search_suffixes held
        WHERE held.shop_id = new.shop_id AND held.suffix = suffix.value
          AND held.product_id = new.id
    );
END;
