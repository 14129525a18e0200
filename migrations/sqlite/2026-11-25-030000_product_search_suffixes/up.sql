-- The product search index becomes a B-tree of suffixes (issue 20), on both databases. Keep in
-- step with migrations/postgres.
--
-- A term lies inside a line of a product's search text (its name, or one of its codes) exactly
-- when it begins one of that line's suffixes. So one range read of the B-tree (shop_id, suffix)
-- finds the products holding a term, reading the entries that match it and no others, whatever
-- the catalogue's size. The trigram index it replaces could not: every seeded code shares its
-- trigrams with thousands of others, and a trigram plan reads them all (docs/PERFORMANCE.md).
--
-- What is stored, per product and line of `search_text` (lines are separated by a line feed):
-- every suffix of three characters or more, cut to its first 16 characters. A term of three or
-- more characters starts such a suffix exactly when its own first 16 characters start the cut
-- one, so the cut loses no match (crates/persistence/src/catalogue/search.rs reads it with
-- INDEXED_SUFFIX_CHARS = 16). The list keeps its LIKE on products.search_text for the exact
-- answer: an entry left over (see INSERT OR REPLACE below) costs a probe row, never a wrong one.
--
-- Triggers keep it in step with every write to products, whoever makes it: the import's
-- upserts, the bulk loader, hand-written SQL. A row's entries are deleted by recomputing the
-- old text's suffixes, so the table needs no second index by product. `INSERT OR REPLACE`
-- deletes the row it replaces without firing the delete trigger (recursive_triggers is off):
-- that row's entries stay until the product is deleted or its text changes again.
CREATE TABLE product_search_suffixes (
    shop_id    TEXT NOT NULL,
    suffix     TEXT NOT NULL,
    product_id TEXT NOT NULL,
    PRIMARY KEY (shop_id, suffix, product_id)
) WITHOUT ROWID;

-- Every product's suffixes, as each trigger below computes one product's.
INSERT OR IGNORE INTO product_search_suffixes (shop_id, suffix, product_id)
WITH RECURSIVE
    start (id, shop_id, text, n) AS (
        SELECT id, shop_id, search_text, 1 FROM products
        UNION ALL
        SELECT id, shop_id, text, n + 1 FROM start WHERE n < length(text) - 2
    ),
    line (id, shop_id, rest, chars) AS (
        SELECT id, shop_id, substr(text, n),
               CASE instr(substr(text, n), char(10))
                   WHEN 0 THEN length(substr(text, n))
                   ELSE instr(substr(text, n), char(10)) - 1
               END
        FROM start
    )
SELECT shop_id, substr(rest, 1, min(chars, 16)), id FROM line WHERE chars >= 3;

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

CREATE TRIGGER product_search_suffixes_after_delete AFTER DELETE ON products
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
END;

-- The import's upserts set every column: an unchanged text costs no index write. The old
-- entries go first, then the new ones, so a suffix both texts hold is kept.
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

-- The FTS5 trigram index it replaces.
DROP TRIGGER products_search_after_delete;
DROP TRIGGER products_search_after_update;
DROP TRIGGER products_search_after_insert;
DROP TABLE products_search;
DROP TABLE product_search_docs;
