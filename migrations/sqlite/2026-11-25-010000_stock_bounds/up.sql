-- Stock stays within ±10^12 (shop_domain::stock::MAX_ABS_STOCK) and is an integer, on SQLite.
-- The import and the adjustment refuse anything else with a clear answer before it reaches
-- these checks; they are the last line, for any writer. A BIGINT column of SQLite takes any
-- value: a sum past 2^63 became a REAL, stored silently (and the adjustment answered 201 with a
-- wrong previousStock). A column constraint cannot be added to an existing SQLite table, so
-- triggers refuse such writes. Keep in step with migrations/postgres.

CREATE TRIGGER variants_stock_in_range_on_insert
BEFORE INSERT ON variants
WHEN typeof(NEW.stock) <> 'integer'
  OR NEW.stock NOT BETWEEN -1000000000000 AND 1000000000000
  OR typeof(NEW.low_stock_threshold) <> 'integer'
  OR NEW.low_stock_threshold NOT BETWEEN -1000000000000 AND 1000000000000
BEGIN
    SELECT RAISE(ABORT, 'variants: stock out of range or not an integer');
END;

CREATE TRIGGER variants_stock_in_range_on_update
BEFORE UPDATE OF stock, low_stock_threshold ON variants
WHEN typeof(NEW.stock) <> 'integer'
  OR NEW.stock NOT BETWEEN -1000000000000 AND 1000000000000
  OR typeof(NEW.low_stock_threshold) <> 'integer'
  OR NEW.low_stock_threshold NOT BETWEEN -1000000000000 AND 1000000000000
BEGIN
    SELECT RAISE(ABORT, 'variants: stock out of range or not an integer');
END;

CREATE TRIGGER stock_movements_stock_in_range
BEFORE INSERT ON stock_movements
WHEN typeof(NEW.previous_stock) <> 'integer'
  OR NEW.previous_stock NOT BETWEEN -1000000000000 AND 1000000000000
  OR typeof(NEW.new_stock) <> 'integer'
  OR NEW.new_stock NOT BETWEEN -1000000000000 AND 1000000000000
BEGIN
    SELECT RAISE(ABORT, 'stock_movements: stock out of range or not an integer');
END;

-- An adjustment refused because it would leave the range is recorded under its idempotency
-- key like the other refusals, and replayed. SQLite cannot change a CHECK: the table is
-- rebuilt (foreign keys are off while migrating).
CREATE TABLE idempotency_records_new (
    api_key_prefix  TEXT   NOT NULL REFERENCES api_keys (prefix),
    idempotency_key TEXT   NOT NULL,
    -- AdjustmentRequest::fingerprint: SHA-256 of the parsed request, in hex.
    fingerprint     TEXT   NOT NULL,
    outcome         TEXT   NOT NULL
        CHECK (outcome IN ('applied', 'variant_not_found', 'not_tracked', 'out_of_range')),
    -- The movement of an applied adjustment, and only of one.
    movement_id     TEXT   REFERENCES stock_movements (id),
    created_at_ms   BIGINT NOT NULL,
    PRIMARY KEY (api_key_prefix, idempotency_key),
    CHECK ((outcome = 'applied') = (movement_id IS NOT NULL))
);
INSERT INTO idempotency_records_new
    (api_key_prefix, idempotency_key, fingerprint, outcome, movement_id, created_at_ms)
SELECT api_key_prefix, idempotency_key, fingerprint, outcome, movement_id, created_at_ms
FROM idempotency_records;
DROP TABLE idempotency_records;
ALTER TABLE idempotency_records_new RENAME TO idempotency_records;
