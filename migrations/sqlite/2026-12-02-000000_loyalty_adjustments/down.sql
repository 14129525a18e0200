CREATE TABLE idempotency_records_old (
    api_key_prefix  TEXT   NOT NULL REFERENCES api_keys (prefix),
    idempotency_key TEXT   NOT NULL,
    fingerprint     TEXT   NOT NULL,
    outcome         TEXT   NOT NULL
        CHECK (outcome IN ('applied', 'variant_not_found', 'not_tracked', 'out_of_range')),
    movement_id     TEXT   REFERENCES stock_movements (id),
    created_at_ms   BIGINT NOT NULL,
    PRIMARY KEY (api_key_prefix, idempotency_key),
    CHECK ((outcome = 'applied') = (movement_id IS NOT NULL))
);
INSERT INTO idempotency_records_old
    (api_key_prefix, idempotency_key, fingerprint, outcome, movement_id, created_at_ms)
SELECT api_key_prefix, idempotency_key, fingerprint, outcome, movement_id, created_at_ms
FROM idempotency_records
WHERE outcome IN ('applied', 'variant_not_found', 'not_tracked', 'out_of_range');
DROP TABLE idempotency_records;
ALTER TABLE idempotency_records_old RENAME TO idempotency_records;
DROP TABLE loyalty_adjustments;
