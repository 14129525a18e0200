-- Clients, orders with their items, lottery tickets and instant spins (PostgreSQL).
-- Ids are global primary keys (unique across shops); every row also carries its shop_id so that
-- every query can be scoped by shop. Timestamps are epoch milliseconds set by the application.
-- Keep in step with migrations/sqlite.
-- Id and key columns are COLLATE "C" so that ORDER BY and keyset comparisons follow byte order,
-- as SQLite does, whatever the database's default collation.

CREATE TABLE clients (
    id                   TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    shop_id              TEXT COLLATE "C" NOT NULL REFERENCES shops (id),
    name                 TEXT    NOT NULL,
    display_name         TEXT,
    phone                TEXT,
    email                TEXT,
    billing_company      TEXT,
    billing_vat_number   TEXT,
    billing_address      TEXT,
    billing_city         TEXT,
    billing_postal_code  TEXT,
    -- ISO 3166-1 alpha-2.
    billing_country      TEXT    NOT NULL,
    -- YYYY-MM-DD.
    birth_date           TEXT,
    points               BIGINT  NOT NULL,
    points_expires_at_ms BIGINT,
    points_lifetime      BIGINT  NOT NULL,
    points_all_time      BIGINT  NOT NULL,
    tier_achieved_at_ms  BIGINT,
    receipt_by_email     BOOLEAN NOT NULL,
    -- JSON array of strings.
    tags                 TEXT    NOT NULL,
    -- Confidential (spec §2): stored, never returned.
    note                 TEXT,
    anonymous_client_id  TEXT,
    -- Client::search_text(): case-folded name, display name and e-mail, searched with LIKE.
    search_text          TEXT    NOT NULL,
    -- Client::phone_digits(): the phone without separators or +33/0 prefix ('' without one).
    phone_digits         TEXT    NOT NULL,
    created_at_ms        BIGINT  NOT NULL,
    updated_at_ms        BIGINT  NOT NULL
);
-- The list's keyset (shop, id).
CREATE INDEX clients_shop_id_id ON clients (shop_id, id);

CREATE TABLE orders (
    id                            TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    shop_id                       TEXT COLLATE "C" NOT NULL REFERENCES shops (id),
    order_number                  BIGINT NOT NULL,
    -- OrderSource / OrderStatus / PaymentStatus::as_str.
    source                        TEXT   NOT NULL,
    status                        TEXT   NOT NULL,
    payment_status                TEXT   NOT NULL,
    subtotal_cents                BIGINT NOT NULL,
    discount_amount_cents         BIGINT NOT NULL,
    tax_amount_cents              BIGINT NOT NULL,
    total_cents                   BIGINT NOT NULL,
    payment_method                TEXT,
    paid_at_ms                    BIGINT,
    client_id                     TEXT COLLATE "C" REFERENCES clients (id),
    -- Confidential (spec §2): fiscal chain and private data, stored, never returned.
    signature                     TEXT,
    previous_signature            TEXT,
    cumulative_total_ttc_snapshot BIGINT,
    internal_note                 TEXT,
    payment_intent_id             TEXT,
    created_at_ms                 BIGINT NOT NULL,
    updated_at_ms                 BIGINT NOT NULL
);
-- The list: newest first by (created_at, id), within a shop, and within a shop's client.
CREATE INDEX orders_shop_id_created_at_id ON orders (shop_id, created_at_ms, id);
CREATE INDEX orders_shop_id_client_id_created_at_id
    ON orders (shop_id, client_id, created_at_ms, id);

-- No foreign key to products or variants: an order's history must survive catalogue changes.
-- The import checks those references instead.
CREATE TABLE order_items (
    id                  TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    shop_id             TEXT COLLATE "C" NOT NULL REFERENCES shops (id),
    order_id            TEXT COLLATE "C" NOT NULL REFERENCES orders (id),
    -- Index in the order's item list, from 0.
    position            INTEGER NOT NULL,
    product_id          TEXT COLLATE "C" NOT NULL,
    variant_id          TEXT COLLATE "C" NOT NULL,
    product_name        TEXT    NOT NULL,
    unit_price_cents    BIGINT  NOT NULL,
    quantity            BIGINT  NOT NULL,
    total_cents         BIGINT  NOT NULL,
    -- 20.00 % is 2000.
    tax_rate_hundredths BIGINT  NOT NULL,
    tax_amount_cents    BIGINT  NOT NULL
);
-- A page's items in list order, in one query; one item per position.
CREATE UNIQUE INDEX order_items_order_id_position ON order_items (order_id, position);

CREATE TABLE lottery_tickets (
    id            TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    shop_id       TEXT COLLATE "C" NOT NULL REFERENCES shops (id),
    client_id     TEXT COLLATE "C" NOT NULL REFERENCES clients (id),
    order_id      TEXT COLLATE "C" REFERENCES orders (id),
    created_at_ms BIGINT NOT NULL
);
-- A client's latest tickets.
CREATE INDEX lottery_tickets_shop_id_client_id_created_at_id
    ON lottery_tickets (shop_id, client_id, created_at_ms, id);

CREATE TABLE spins (
    id            TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    shop_id       TEXT COLLATE "C" NOT NULL REFERENCES shops (id),
    client_id     TEXT COLLATE "C" NOT NULL REFERENCES clients (id),
    order_id      TEXT COLLATE "C" REFERENCES orders (id),
    won           BOOLEAN NOT NULL,
    prize_label   TEXT,
    prize_type    TEXT,
    created_at_ms BIGINT  NOT NULL
);
-- A client's latest spins.
CREATE INDEX spins_shop_id_client_id_created_at_id
    ON spins (shop_id, client_id, created_at_ms, id);
