-- Stock: each variant's search text for `GET /stock`, the movements that adjustments write, and
-- the idempotency keys they are recorded under (PostgreSQL). Keep in step with migrations/sqlite.
-- Id and key columns are COLLATE "C" so that ORDER BY and keyset comparisons follow byte order,
-- as SQLite does, whatever the database's default collation.

-- stock_search_text(product, variant): the case-folded product name, EAN and SKU and the
-- variant's SKU and barcode, joined by newlines. The import writes it for every variant of every
-- product it writes. Existing rows are backfilled here with SQL's lower(), which may fold only
-- ASCII (it depends on the database's LC_CTYPE; SQLite's folds only ASCII): an accented capital
-- in old data is found once its product is imported again. concat_ws skips NULLs, as the
-- application skips missing codes.
ALTER TABLE variants ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
UPDATE variants
SET search_text = lower(concat_ws(chr(10), p.name, p.ean, p.sku, variants.sku, variants.barcode))
FROM products p
WHERE p.id = variants.product_id;
-- The stock list's keyset (shop, variant id).
CREATE INDEX variants_shop_id_id ON variants (shop_id, id);

-- One applied adjustment; never updated or deleted.
CREATE TABLE stock_movements (
    id             TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    shop_id        TEXT COLLATE "C" NOT NULL REFERENCES shops (id),
    variant_id     TEXT COLLATE "C" NOT NULL REFERENCES variants (id),
    product_id     TEXT COLLATE "C" NOT NULL REFERENCES products (id),
    delta          BIGINT NOT NULL,
    previous_stock BIGINT NOT NULL,
    new_stock      BIGINT NOT NULL,
    reason         TEXT   NOT NULL,
    -- The API key that made the adjustment.
    api_key_prefix TEXT COLLATE "C" NOT NULL REFERENCES api_keys (prefix),
    created_at_ms  BIGINT NOT NULL
);
-- The movement list: newest first by (created_at, id), within a shop, and within a variant.
CREATE INDEX stock_movements_shop_id_created_at_id ON stock_movements (shop_id, created_at_ms, id);
CREATE INDEX stock_movements_shop_id_variant_id_created_at_id
    ON stock_movements (shop_id, variant_id, created_at_ms, id);

-- The first answer given under an Idempotency-Key, per API key, replayed to retries. A record
-- older than the retention period is deleted when its key is used again.
CREATE TABLE idempotency_records (
    api_key_prefix  TEXT COLLATE "C" NOT NULL REFERENCES api_keys (prefix),
    idempotency_key TEXT COLLATE "C" NOT NULL,
    -- AdjustmentRequest::fingerprint: SHA-256 of the parsed request, in hex.
    fingerprint     TEXT   NOT NULL,
    outcome         TEXT   NOT NULL
        CHECK (outcome IN ('applied', 'variant_not_found', 'not_tracked')),
    -- The movement of an applied adjustment, and only of one.
    movement_id     TEXT COLLATE "C" REFERENCES stock_movements (id),
    created_at_ms   BIGINT NOT NULL,
    PRIMARY KEY (api_key_prefix, idempotency_key),
    CHECK ((outcome = 'applied') = (movement_id IS NOT NULL))
);
