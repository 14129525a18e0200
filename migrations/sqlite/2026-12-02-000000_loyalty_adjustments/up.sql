-- Adjustments of a client's points made through the API (issue 35, `POST
-- /api/v2/clients/{id}/loyalty/adjustments`): each one kept, as stock movements are, and its
-- answer recorded under the caller's Idempotency-Key in the same records as the stock
-- adjustments' (one namespace of keys per API key). Keep in step with migrations/postgres.
CREATE TABLE loyalty_adjustments (
    id              TEXT   NOT NULL PRIMARY KEY,
    shop_id         TEXT   NOT NULL REFERENCES shops (id),
    client_id       TEXT   NOT NULL REFERENCES clients (id),
    delta           BIGINT NOT NULL,
    previous_points BIGINT NOT NULL,
    new_points      BIGINT NOT NULL,
    reason          TEXT   NOT NULL,
    -- The API key that made the adjustment.
    api_key_prefix  TEXT   NOT NULL REFERENCES api_keys (prefix),
    created_at_ms   BIGINT NOT NULL
);
-- A client's adjustments, newest first.
CREATE INDEX loyalty_adjustments_shop_id_client_id_created_at_id
    ON loyalty_adjustments (shop_id, client_id, created_at_ms, id);

-- SQLite cannot change a CHECK: the records' table is rebuilt (foreign keys are off while
-- migrating).
CREATE TABLE idempotency_records_new (
    api_key_prefix        TEXT   NOT NULL REFERENCES api_keys (prefix),
    idempotency_key       TEXT   NOT NULL,
    -- The request's fingerprint (AdjustmentRequest's, PointsAdjustmentRequest's): SHA-256.
    fingerprint           TEXT   NOT NULL,
    outcome               TEXT   NOT NULL
        CHECK (outcome IN ('applied', 'variant_not_found', 'not_tracked', 'out_of_range',
                           'points_applied', 'client_not_found', 'insufficient_points',
                           'points_out_of_range')),
    -- The movement of an applied adjustment, and only of one.
    movement_id           TEXT   REFERENCES stock_movements (id),
    created_at_ms         BIGINT NOT NULL,
    -- The adjustment of an applied points adjustment, and only of one.
    loyalty_adjustment_id TEXT   REFERENCES loyalty_adjustments (id),
    PRIMARY KEY (api_key_prefix, idempotency_key),
    CHECK ((outcome = 'applied') = (movement_id IS NOT NULL)),
    CHECK ((outcome = 'points_applied') = (loyalty_adjustment_id IS NOT NULL))
);
INSERT INTO idempotency_records_new
    (api_key_prefix, idempotency_key, fingerprint, outcome, movement_id, created_at_ms)
SELECT api_key_prefix, idempotency_key, fingerprint, outcome, movement_id, created_at_ms
FROM idempotency_records;
DROP TABLE idempotency_records;
ALTER TABLE idempotency_records_new RENAME TO idempotency_records;
