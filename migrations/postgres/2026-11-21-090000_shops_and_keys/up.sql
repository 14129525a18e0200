-- Shops and their API keys (PostgreSQL).
-- Portable types only: TEXT, BIGINT, INTEGER, BOOLEAN. Every timestamp is epoch milliseconds set
-- by the application, never a database default. Keep in step with migrations/sqlite.
-- Id and key columns are COLLATE "C" so that ORDER BY and keyset comparisons follow byte order,
-- as SQLite does, whatever the database's default collation.

CREATE TABLE shops (
    id            TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    slug          TEXT COLLATE "C" NOT NULL UNIQUE,
    name          TEXT    NOT NULL,
    public_api    BOOLEAN NOT NULL,
    subscription  TEXT    NOT NULL,
    created_at_ms BIGINT  NOT NULL,
    updated_at_ms BIGINT  NOT NULL
);

CREATE TABLE api_keys (
    prefix        TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    shop_id       TEXT COLLATE "C" NOT NULL REFERENCES shops (id),
    label         TEXT   NOT NULL,
    -- ScopeSet::to_list: comma-separated scope names.
    scopes        TEXT   NOT NULL,
    -- argon2id PHC string; the secret itself is never stored.
    secret_hash   TEXT   NOT NULL,
    created_at_ms BIGINT NOT NULL,
    expires_at_ms BIGINT,
    revoked_at_ms BIGINT
);

-- list_keys: a shop's keys, oldest first.
CREATE INDEX api_keys_shop_id ON api_keys (shop_id, created_at_ms);
