-- The product search index becomes a B-tree of suffixes (issue 20), on both databases. Keep in
-- step with migrations/sqlite, whose header says why: a term lies inside a line of a product's
-- search text exactly when it begins one of that line's suffixes, so one range read of
-- (shop_id, suffix) finds the products holding it, whatever the catalogue's size, where the
-- trigram index read the long match lists of every common trigram of a code.
--
-- Stored per product and line of `search_text`: every suffix of three characters or more, cut to
-- its first 16 characters (INDEXED_SUFFIX_CHARS in crates/persistence/src/catalogue/search.rs).
-- `suffix` sorts by code point ("C"), as SQLite's BINARY does, so that the range
-- [term, successor of term) holds exactly the suffixes the term begins on both databases.
CREATE TABLE product_search_suffixes (
    shop_id    TEXT COLLATE "C" NOT NULL,
    suffix     TEXT COLLATE "C" NOT NULL,
    product_id TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (shop_id, suffix, product_id)
);

-- One text's suffixes, as stored.
CREATE FUNCTION product_search_suffixes_of(search_text TEXT) RETURNS SETOF TEXT
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT DISTINCT left(substr(line, n), 16)
    FROM unnest(string_to_array(search_text, E'\n')) AS line,
         generate_series(1, length(line) - 2) AS n
$$;

-- Triggers keep the table in step with every write to products, whoever makes it. A row's
-- entries are deleted by recomputing the old text's suffixes, so the table needs no second
-- index by product. Inserts and deletes are handled once per statement, with the statement's
-- rows: a bulk insert of 100,000 products then writes their entries in one sorted pass (76 s
-- against 161 s row by row, docs/PERFORMANCE.md). An update is handled per row, so that only
-- a changed text (the trigger's WHEN) costs anything: a stock movement also updates its
-- product, and a statement-level update trigger (which cannot name columns when it sees the
-- statement's rows) would run on each.
CREATE FUNCTION product_search_suffixes_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO product_search_suffixes (shop_id, suffix, product_id)
    SELECT p.shop_id, suffix, p.id
    FROM inserted p, product_search_suffixes_of(p.search_text) suffix
    ORDER BY 1, 2, 3
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;

CREATE FUNCTION product_search_suffixes_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM product_search_suffixes e
    USING deleted p, product_search_suffixes_of(p.search_text) old_suffix
    WHERE e.shop_id = p.shop_id AND e.product_id = p.id AND e.suffix = old_suffix;
    RETURN NULL;
END
$$;

CREATE FUNCTION product_search_suffixes_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM product_search_suffixes
    WHERE shop_id = OLD.shop_id AND product_id = OLD.id
      AND suffix IN (SELECT product_search_suffixes_of(OLD.search_text));
    INSERT INTO product_search_suffixes (shop_id, suffix, product_id)
    SELECT NEW.shop_id, suffix, NEW.id FROM product_search_suffixes_of(NEW.search_text) suffix
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;

INSERT INTO product_search_suffixes (shop_id, suffix, product_id)
SELECT p.shop_id, suffix, p.id FROM products p, product_search_suffixes_of(p.search_text) suffix
ORDER BY 1, 2, 3;

CREATE TRIGGER product_search_suffixes_after_insert AFTER INSERT ON products
REFERENCING NEW TABLE AS inserted
FOR EACH STATEMENT EXECUTE FUNCTION product_search_suffixes_after_insert();

CREATE TRIGGER product_search_suffixes_after_delete AFTER DELETE ON products
REFERENCING OLD TABLE AS deleted
FOR EACH STATEMENT EXECUTE FUNCTION product_search_suffixes_after_delete();

-- The import's upserts set every column: an unchanged text costs no index write.
CREATE TRIGGER product_search_suffixes_after_update AFTER UPDATE OF id, shop_id, search_text
ON products
FOR EACH ROW
WHEN (OLD.id IS DISTINCT FROM NEW.id OR OLD.shop_id IS DISTINCT FROM NEW.shop_id
      OR OLD.search_text IS DISTINCT FROM NEW.search_text)
EXECUTE FUNCTION product_search_suffixes_after_update();

-- The trigram index it replaces.
DROP INDEX products_search_text_trgm;
