-- Adjustments of a client's points made through the API (issue 35, `POST
-- /api/v2/clients/{id}/loyalty/adjustments`): each one kept, as stock movements are, and its
-- answer recorded under the caller's Idempotency-Key in the same records as the stock
-- adjustments' (one namespace of keys per API key). Keep in step with migrations/sqlite.
CREATE TABLE loyalty_adjustments (
    id              TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    shop_id         TEXT COLLATE "C" NOT NULL REFERENCES shops (id),
    client_id       TEXT COLLATE "C" NOT NULL REFERENCES clients (id),
    delta           BIGINT NOT NULL,
    previous_points BIGINT NOT NULL,
    new_points      BIGINT NOT NULL,
    reason          TEXT   NOT NULL,
    -- The API key that made the adjustment.
    api_key_prefix  TEXT COLLATE "C" NOT NULL REFERENCES api_keys (prefix),
    created_at_ms   BIGINT NOT NULL
);
-- A client's adjustments, newest first.
CREATE INDEX loyalty_adjustments_shop_id_client_id_created_at_id
    ON loyalty_adjustments (shop_id, client_id, created_at_ms, id);

ALTER TABLE idempotency_records
    ADD COLUMN loyalty_adjustment_id TEXT COLLATE "C" REFERENCES loyalty_adjustments (id),
    DROP CONSTRAINT idempotency_records_outcome_check,
    ADD CONSTRAINT idempotency_records_outcome_check
        CHECK (outcome IN ('applied', 'variant_not_found', 'not_tracked', 'out_of_range',
                           'points_applied', 'client_not_found', 'insufficient_points',
                           'points_out_of_range')),
    -- The adjustment of an applied points adjustment, and only of one.
    ADD CONSTRAINT idempotency_records_points_applied_check
        CHECK ((outcome = 'points_applied') = (loyalty_adjustment_id IS NOT NULL));
