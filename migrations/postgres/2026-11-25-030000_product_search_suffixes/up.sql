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
-- index by product.
CREATE FUNCTION product_search_suffixes_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        DELETE FROM product_search_suffixes
        WHERE shop_id = OLD.shop_id AND product_id = OLD.id
          AND suffix IN (SELECT product_search_suffixes_of(OLD.search_text));
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO product_search_suffixes (shop_id, suffix, product_id)
        SELECT NEW.shop_id, suffix, NEW.id FROM product_search_suffixes_of(NEW.search_text) suffix
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;

INSERT INTO product_search_suffixes (shop_id, suffix, product_id)
SELECT p.shop_id, suffix, p.id FROM products p, product_search_suffixes_of(p.search_text) suffix;

CREATE TRIGGER product_search_suffixes_after_insert_or_delete AFTER INSERT OR DELETE ON products
FOR EACH ROW EXECUTE FUNCTION product_search_suffixes_follow();

-- The import's upserts set every column: an unchanged text costs no index write.
CREATE TRIGGER product_search_suffixes_after_update AFTER UPDATE OF id, shop_id, search_text
ON products
FOR EACH ROW
WHEN (OLD.id IS DISTINCT FROM NEW.id OR OLD.shop_id IS DISTINCT FROM NEW.shop_id
      OR OLD.search_text IS DISTINCT FROM NEW.search_text)
EXECUTE FUNCTION product_search_suffixes_follow();

-- The trigram index it replaces.
DROP INDEX products_search_text_trgm;
