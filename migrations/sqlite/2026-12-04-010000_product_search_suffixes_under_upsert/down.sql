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
        )
    SELECT new.shop_id, substr(rest, 1, min(chars, 16)), new.id FROM line WHERE chars >= 3;
END;

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
        )
    SELECT new.shop_id, substr(rest, 1, min(chars, 16)), new.id FROM line WHERE chars >= 3;
END;

