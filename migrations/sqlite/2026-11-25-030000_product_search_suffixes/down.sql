-- Back to the FTS5 trigram index of 2026-11-21-120000_search_indexes.
DROP TRIGGER product_search_suffixes_after_update;
DROP TRIGGER product_search_suffixes_after_delete;
DROP TRIGGER product_search_suffixes_after_insert;
DROP TABLE product_search_suffixes;

CREATE TABLE product_search_docs (
    doc        INTEGER PRIMARY KEY,
    product_id TEXT    NOT NULL UNIQUE,
    -- The search reads only its own shop's matches.
    shop_id    TEXT    NOT NULL
);

-- A table of its own (it keeps a copy of the text), whose rowids are the `doc` numbers.
CREATE VIRTUAL TABLE products_search USING fts5 (search_text, tokenize = 'trigram');

INSERT INTO product_search_docs (product_id, shop_id) SELECT id, shop_id FROM products ORDER BY id;
INSERT INTO products_search (rowid, search_text)
SELECT d.doc, p.search_text
FROM product_search_docs d
JOIN products p ON p.id = d.product_id;

-- A document left over for the same id is dropped first: `INSERT OR REPLACE` deletes the row
-- it replaces without firing the delete trigger (recursive_triggers is off).
CREATE TRIGGER products_search_after_insert AFTER INSERT ON products
BEGIN
    DELETE FROM products_search
    WHERE rowid = (SELECT doc FROM product_search_docs WHERE product_id = new.id);
    DELETE FROM product_search_docs WHERE product_id = new.id;
    INSERT INTO product_search_docs (product_id, shop_id) VALUES (new.id, new.shop_id);
    INSERT INTO products_search (rowid, search_text)
    VALUES ((SELECT doc FROM product_search_docs WHERE product_id = new.id), new.search_text);
END;

-- The import's upserts set every column: an unchanged text costs no index write.
CREATE TRIGGER products_search_after_update AFTER UPDATE OF id, shop_id, search_text ON products
WHEN old.id IS NOT new.id OR old.shop_id IS NOT new.shop_id
    OR old.search_text IS NOT new.search_text
BEGIN
    UPDATE product_search_docs SET product_id = new.id, shop_id = new.shop_id
    WHERE product_id = old.id;
    UPDATE products_search SET search_text = new.search_text
    WHERE rowid = (SELECT doc FROM product_search_docs WHERE product_id = new.id);
END;

CREATE TRIGGER products_search_after_delete AFTER DELETE ON products
BEGIN
    DELETE FROM products_search
    WHERE rowid = (SELECT doc FROM product_search_docs WHERE product_id = old.id);
    DELETE FROM product_search_docs WHERE product_id = old.id;
END;
