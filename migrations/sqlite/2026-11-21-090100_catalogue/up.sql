-- The catalogue: categories, brands, loyalty tiers, products and variants (SQLite).
-- Ids are global primary keys (unique across shops); every row also carries its shop_id so that
-- every query can be scoped by shop. Keep in step with migrations/postgres.

CREATE TABLE categories (
    id      TEXT NOT NULL PRIMARY KEY,
    shop_id TEXT NOT NULL REFERENCES shops (id),
    name    TEXT NOT NULL
);
CREATE INDEX categories_shop_id ON categories (shop_id);

CREATE TABLE brands (
    id      TEXT NOT NULL PRIMARY KEY,
    shop_id TEXT NOT NULL REFERENCES shops (id),
    name    TEXT NOT NULL
);
CREATE INDEX brands_shop_id ON brands (shop_id);

CREATE TABLE loyalty_tiers (
    id                  TEXT   NOT NULL PRIMARY KEY,
    shop_id             TEXT   NOT NULL REFERENCES shops (id),
    name                TEXT   NOT NULL,
    min_points_lifetime BIGINT NOT NULL,
    -- #RRGGBB, upper case.
    color               TEXT   NOT NULL
);
CREATE INDEX loyalty_tiers_shop_id ON loyalty_tiers (shop_id, min_points_lifetime);

CREATE TABLE products (
    id                     TEXT    NOT NULL PRIMARY KEY,
    shop_id                TEXT    NOT NULL REFERENCES shops (id),
    name                   TEXT    NOT NULL,
    product_type           TEXT    NOT NULL,
    ean                    TEXT,
    sku                    TEXT,
    price_cents            BIGINT  NOT NULL,
    list_price_cents       BIGINT  NOT NULL,
    compare_at_price_cents BIGINT,
    promo_active           BOOLEAN NOT NULL,
    -- 20.00 % is 2000.
    tax_rate_hundredths    BIGINT  NOT NULL,
    active                 BOOLEAN NOT NULL,
    track_stock            BOOLEAN NOT NULL,
    -- JSON arrays of strings.
    tags                   TEXT    NOT NULL,
    photos                 TEXT    NOT NULL,
    category_id            TEXT REFERENCES categories (id),
    brand_id               TEXT REFERENCES brands (id),
    -- Product::search_text(): case-folded name, EAN, SKU and variant codes, searched with LIKE.
    search_text            TEXT    NOT NULL,
    created_at_ms          BIGINT  NOT NULL,
    updated_at_ms          BIGINT  NOT NULL
);
-- The list's keyset (shop, id) and its filters.
CREATE INDEX products_shop_id_id ON products (shop_id, id);
CREATE INDEX products_shop_id_updated_at ON products (shop_id, updated_at_ms);
CREATE INDEX products_shop_id_category_id ON products (shop_id, category_id);
CREATE INDEX products_shop_id_brand_id ON products (shop_id, brand_id);

CREATE TABLE variants (
    id                  TEXT    NOT NULL PRIMARY KEY,
    shop_id             TEXT    NOT NULL REFERENCES shops (id),
    product_id          TEXT    NOT NULL REFERENCES products (id),
    label               TEXT    NOT NULL,
    sku                 TEXT,
    barcode             TEXT,
    swatch_color        TEXT,
    price_cents         BIGINT  NOT NULL,
    stock               BIGINT  NOT NULL,
    low_stock_threshold BIGINT  NOT NULL,
    is_default          BOOLEAN NOT NULL,
    active              BOOLEAN NOT NULL,
    -- Display position (the API's `order`), from 0.
    position            INTEGER NOT NULL
);
-- A page's variants in display order, in one query.
CREATE INDEX variants_product_id_position ON variants (product_id, position, id);
