-- Incremental sync (issue 21, shop_domain::sync): `updatedSince` on orders, clients and stock
-- walks (shop_id, updated_at, id) in order, so that a page of recent changes reads only them,
-- whatever the table's size. A stock entry gains its own `updatedAt`: its last movement,
-- tracking switch or import change; until now the product's moved instead, which is the
-- closest stored value for the rows that exist. Keep in step with migrations/sqlite.

ALTER TABLE variants ADD COLUMN stock_updated_at_ms BIGINT NOT NULL DEFAULT 0;

UPDATE variants SET stock_updated_at_ms = (
    SELECT products.updated_at_ms FROM products
    WHERE products.id = variants.product_id AND products.shop_id = variants.shop_id
);

CREATE INDEX orders_shop_id_updated_at ON orders (shop_id, updated_at_ms, id);
CREATE INDEX clients_shop_id_updated_at ON clients (shop_id, updated_at_ms, id);
CREATE INDEX variants_shop_id_stock_updated_at ON variants (shop_id, stock_updated_at_ms, id);
