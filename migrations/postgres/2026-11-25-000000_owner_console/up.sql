-- The owner console (PostgreSQL): owners and their sessions, when each API key was last used,
-- stock tracking per variant, and the record of tracking switches. Portable types only; every
-- timestamp is epoch milliseconds set by the application. Keep in step with migrations/sqlite.
-- Id and key columns are COLLATE "C" so that ORDER BY and keyset comparisons follow byte order,
-- as SQLite does, whatever the database's default collation.

-- A shop's owner, who signs in to the console. A shop may have several; an owner is disabled,
-- never deleted (tracking switches name them).
CREATE TABLE owners (
    id             TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    shop_id        TEXT COLLATE "C" NOT NULL REFERENCES shops (id),
    -- OwnerEmail: trimmed and lower-cased by the application, so that uniqueness ignores case.
    email          TEXT COLLATE "C" NOT NULL UNIQUE,
    -- argon2id PHC string; the password itself is never stored.
    password_hash  TEXT   NOT NULL,
    created_at_ms  BIGINT NOT NULL,
    disabled_at_ms BIGINT
);
-- list_owners: a shop's owners, oldest first.
CREATE INDEX owners_shop_id_created_at ON owners (shop_id, created_at_ms);

-- A console session. The browser holds 256 random bits; only their SHA-256 is stored, so a
-- copy of the database holds no usable session.
CREATE TABLE owner_sessions (
    -- SessionDigest: the token's SHA-256, 64 lower-case hex digits.
    id_digest       TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    owner_id        TEXT COLLATE "C" NOT NULL REFERENCES owners (id),
    -- The session's anti-CSRF token, put in every form of the console.
    csrf_token      TEXT   NOT NULL,
    created_at_ms   BIGINT NOT NULL,
    -- The last request seen, written at most once a minute.
    last_seen_at_ms BIGINT NOT NULL
);
-- disable_owner deletes an owner's sessions.
CREATE INDEX owner_sessions_owner_id ON owner_sessions (owner_id);
-- delete_expired_sessions: idle since before a time, or created before another (one index per
-- side of the OR).
CREATE INDEX owner_sessions_last_seen_at ON owner_sessions (last_seen_at_ms);
CREATE INDEX owner_sessions_created_at ON owner_sessions (created_at_ms);

-- The last minute the key authenticated a request, recorded off the request's path; NULL if
-- never. Only moves forward.
ALTER TABLE api_keys ADD COLUMN last_used_at_ms BIGINT;

-- Stock tracking per variant (spec §3: "a variant has stock tracking on or off"), switched in
-- the console; the import sets it to its product's trackStock, which is backfilled here. The
-- default serves this ALTER only (SQLite requires one for a NOT NULL column; keeping it here
-- too keeps the tables alike, and a constant default adds the column without rewriting the
-- table): the application always writes the column. Only the untracked products' variants need
-- rewriting.
ALTER TABLE variants ADD COLUMN track_stock BOOLEAN NOT NULL DEFAULT TRUE;
UPDATE variants SET track_stock = FALSE
WHERE product_id IN (SELECT id FROM products WHERE NOT track_stock);

-- One switch of a variant's tracking, made in the console; never updated or deleted. The
-- variant's stock and movements are left as they are.
CREATE TABLE tracking_switches (
    id            TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    shop_id       TEXT COLLATE "C" NOT NULL REFERENCES shops (id),
    variant_id    TEXT COLLATE "C" NOT NULL REFERENCES variants (id),
    product_id    TEXT COLLATE "C" NOT NULL REFERENCES products (id),
    -- The tracking after the switch.
    tracked       BOOLEAN NOT NULL,
    owner_id      TEXT COLLATE "C" NOT NULL REFERENCES owners (id),
    created_at_ms BIGINT  NOT NULL
);
-- The activity list: newest first by (created_at, id), within a shop (with the movements'
-- stock_movements_shop_id_created_at_id).
CREATE INDEX tracking_switches_shop_id_created_at_id
    ON tracking_switches (shop_id, created_at_ms, id);
