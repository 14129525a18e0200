-- An integration's writes of clients (and, later, products) through API v2 (issue 35).
-- Keep in step with migrations/postgres.

-- `shop_domain::client::email_key`: the e-mail as one address, whatever its case, so that a
-- shop's e-mails are unique without regard to case. Written with the client (import included);
-- imported duplicates stay as they are, and are only refused to a new writer. SQLite's lower()
-- folds ASCII only: an existing e-mail with a capital beyond ASCII gets its exact key at its
-- next import or write.
ALTER TABLE clients ADD COLUMN email_key TEXT;
UPDATE clients SET email_key = lower(trim(email)) WHERE email IS NOT NULL;
CREATE INDEX clients_shop_id_email_key ON clients (shop_id, email_key)
    WHERE email_key IS NOT NULL;

-- SQLite cannot change a CHECK: the records' table is rebuilt (foreign keys are off while
-- migrating). A create's answer under its Idempotency-Key: the resource created (`created`),
-- or the holder of the value it claimed (`conflict`, with the member's path).
CREATE TABLE idempotency_records_new (
    api_key_prefix        TEXT   NOT NULL REFERENCES api_keys (prefix),
    idempotency_key       TEXT   NOT NULL,
    fingerprint           TEXT   NOT NULL,
    outcome               TEXT   NOT NULL
        CHECK (outcome IN ('applied', 'variant_not_found', 'not_tracked', 'out_of_range',
                           'points_applied', 'client_not_found', 'insufficient_points',
                           'points_out_of_range', 'created', 'conflict')),
    movement_id           TEXT   REFERENCES stock_movements (id),
    created_at_ms         BIGINT NOT NULL,
    loyalty_adjustment_id TEXT   REFERENCES loyalty_adjustments (id),
    resource_id           TEXT,
    member                TEXT,
    PRIMARY KEY (api_key_prefix, idempotency_key),
    CHECK ((outcome = 'applied') = (movement_id IS NOT NULL)),
    CHECK ((outcome = 'points_applied') = (loyalty_adjustment_id IS NOT NULL)),
    CHECK ((outcome IN ('created', 'conflict')) = (resource_id IS NOT NULL))
);
INSERT INTO idempotency_records_new
    (api_key_prefix, idempotency_key, fingerprint, outcome, movement_id, created_at_ms,
     loyalty_adjustment_id)
SELECT api_key_prefix, idempotency_key, fingerprint, outcome, movement_id, created_at_ms,
       loyalty_adjustment_id
FROM idempotency_records;
DROP TABLE idempotency_records;
ALTER TABLE idempotency_records_new RENAME TO idempotency_records;

-- The writes made by API keys, for the owners' console: which key, what, and which members.
CREATE TABLE api_writes (
    id             TEXT   NOT NULL PRIMARY KEY,
    shop_id        TEXT   NOT NULL REFERENCES shops (id),
    api_key_prefix TEXT   NOT NULL REFERENCES api_keys (prefix),
    resource       TEXT   NOT NULL CHECK (resource IN ('client', 'product')),
    resource_id    TEXT   NOT NULL,
    action         TEXT   NOT NULL CHECK (action IN ('created', 'updated')),
    -- JSON array of the members' paths that changed (`["email", "billing.city"]`).
    changed        TEXT   NOT NULL,
    created_at_ms  BIGINT NOT NULL
);
-- The shop's activity, newest first.
CREATE INDEX api_writes_shop_id_created_at_id ON api_writes (shop_id, created_at_ms, id);
