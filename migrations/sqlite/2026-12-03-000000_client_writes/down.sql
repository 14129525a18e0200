DROP TABLE api_writes;
CREATE TABLE idempotency_records_old (
    api_key_prefix        TEXT   NOT NULL REFERENCES api_keys (prefix),
    idempotency_key       TEXT   NOT NULL,
    fingerprint           TEXT   NOT NULL,
    outcome               TEXT   NOT NULL
        CHECK (outcome IN ('applied', 'variant_not_found', 'not_tracked', 'out_of_range',
                           'points_applied', 'client_not_found', 'insufficient_points',
                           'points_out_of_range')),
    movement_id           TEXT   REFERENCES stock_movements (id),
    created_at_ms         BIGINT NOT NULL,
    loyalty_adjustment_id TEXT   REFERENCES loyalty_adjustments (id),
    PRIMARY KEY (api_key_prefix, idempotency_key),
    CHECK ((outcome = 'applied') = (movement_id IS NOT NULL)),
    CHECK ((outcome = 'points_applied') = (loyalty_adjustment_id IS NOT NULL))
);
INSERT INTO idempotency_records_old
    (api_key_prefix, idempotency_key, fingerprint, outcome, movement_id, created_at_ms,
     loyalty_adjustment_id)
SELECT api_key_prefix, idempotency_key, fingerprint, outcome, movement_id, created_at_ms,
       loyalty_adjustment_id
FROM idempotency_records
WHERE outcome NOT IN ('created', 'conflict');
DROP TABLE idempotency_records;
ALTER TABLE idempotency_records_old RENAME TO idempotency_records;
DROP INDEX clients_shop_id_email_key;
ALTER TABLE clients DROP COLUMN email_key;
