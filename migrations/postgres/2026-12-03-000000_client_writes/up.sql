-- An integration's writes of clients (and, later, products) through API v2 (issue 35).
-- Keep in step with migrations/sqlite.

-- `shop_domain::client::email_key`: the e-mail as one address, whatever its case, so that a
-- shop's e-mails are unique without regard to case. Written with the client (import included);
-- imported duplicates stay as they are, and are only refused to a new writer.
ALTER TABLE clients ADD COLUMN email_key TEXT COLLATE "C";
UPDATE clients SET email_key = lower(btrim(email)) WHERE email IS NOT NULL;
CREATE INDEX clients_shop_id_email_key ON clients (shop_id, email_key)
    WHERE email_key IS NOT NULL;

-- A create's answer under its Idempotency-Key: the resource created (`created`), or the holder
-- of the value it claimed (`conflict`, with the member's path), in the same namespace of keys.
ALTER TABLE idempotency_records
    ADD COLUMN resource_id TEXT COLLATE "C",
    ADD COLUMN member      TEXT,
    DROP CONSTRAINT idempotency_records_outcome_check,
    ADD CONSTRAINT idempotency_records_outcome_check
        CHECK (outcome IN ('applied', 'variant_not_found', 'not_tracked', 'out_of_range',
                           'points_applied', 'client_not_found', 'insufficient_points',
                           'points_out_of_range', 'created', 'conflict')),
    ADD CONSTRAINT idempotency_records_resource_check
        CHECK ((outcome IN ('created', 'conflict')) = (resource_id IS NOT NULL));

-- The writes made by API keys, for the owners' console: which key, what, and which members.
CREATE TABLE api_writes (
    id             TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    shop_id        TEXT COLLATE "C" NOT NULL REFERENCES shops (id),
    api_key_prefix TEXT COLLATE "C" NOT NULL REFERENCES api_keys (prefix),
    resource       TEXT NOT NULL CHECK (resource IN ('client', 'product')),
    resource_id    TEXT COLLATE "C" NOT NULL,
    action         TEXT NOT NULL CHECK (action IN ('created', 'updated')),
    -- JSON array of the members' paths that changed (`["email", "billing.city"]`).
    changed        TEXT NOT NULL,
    created_at_ms  BIGINT NOT NULL
);
-- The shop's activity, newest first.
CREATE INDEX api_writes_shop_id_created_at_id ON api_writes (shop_id, created_at_ms, id);
