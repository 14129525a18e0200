-- PATCH /api/v2/products/{id} with {"priceCents": N}, no If-Match, on SQLite, of a product of the
-- benchmarked shape (one variant; a category and a brand; every code; a swatch colour and a
-- low-stock threshold; no compare-at price: see README.md). The statements the adapter sends
-- for it, in order, with the connection's setup and each statement's binds (read from the
-- running server: sqlite3_sql and sqlite3_expanded_sql at each sqlite3_step, README.md).
-- `ceiling-sqlite --write` (crates/bench, ceiling B for SQLite) runs them on the benchmarked
-- database file, each transaction in the process's one write turn, as the adapter does.
-- A statement without a `binds:` line is sent as it is (BEGIN IMMEDIATE, COMMIT); the others
-- are prepared once per connection and bound. Binds: `:id` is the target product, `:price`
-- a new price at every transaction, `:now_ms` the time, `:write_id` and `:event_id` fresh
-- ids, `:key_prefix` and `:event_body` given on the command line, `@table.column` the target's
-- stored row (read before the run), `$column` the value of that column in the last row a
-- statement of this transaction returned.
--
-- setup: PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;
-- target: products

-- The write's turn in the process, then SQLite's write lock (diesel's immediate transaction),
-- tried without waiting for another process's lock (crates/persistence/src/database/write_runner.rs).
PRAGMA busy_timeout = 0;
BEGIN IMMEDIATE;
PRAGMA busy_timeout = 5000;
-- The product's "lock": on SQLite, where writers already run one at a time, only finding it
-- (crates/persistence/src/database/write_locks.rs).
-- binds: text :shop_id, text :id, bigint 1
SELECT `products`.`id` FROM `products` WHERE ((`products`.`shop_id` = ?) AND (`products`.`id` = ?)) LIMIT ?;
-- The product as it is, with its variant (the join the products page makes, for one id).
-- binds: text '', text '', text :shop_id, text :id
SELECT `products`.`id`, `products`.`shop_id`, `products`.`name`, `products`.`product_type`, `products`.`ean`, `products`.`sku`, `products`.`price_cents`, `products`.`list_price_cents`, `products`.`compare_at_price_cents`, `products`.`promo_active`, `products`.`tax_rate_hundredths`, `products`.`active`, `products`.`track_stock`, `products`.`tags`, `products`.`photos`, `products`.`category_id`, `products`.`brand_id`, ?, `products`.`created_at_ms`, `products`.`updated_at_ms`, `categories`.`name`, `brands`.`name`, `variants`.`id`, `variants`.`shop_id`, `variants`.`product_id`, `variants`.`label`, `variants`.`sku`, `variants`.`barcode`, `variants`.`swatch_color`, `variants`.`price_cents`, `variants`.`stock`, `variants`.`low_stock_threshold`, `variants`.`is_default`, `variants`.`active`, `variants`.`track_stock`, `variants`.`position`, ? FROM (((`products` LEFT OUTER JOIN `categories` ON ((`categories`.`id` = `products`.`category_id`) AND (`categories`.`shop_id` = `products`.`shop_id`))) LEFT OUTER JOIN `brands` ON ((`brands`.`id` = `products`.`brand_id`) AND (`brands`.`shop_id` = `products`.`shop_id`))) LEFT OUTER JOIN `variants` ON ((`variants`.`product_id` = `products`.`id`) AND (`variants`.`shop_id` = `products`.`shop_id`))) WHERE ((`products`.`shop_id` = ?) AND (`products`.`id` = ?)) ORDER BY `products`.`id` ASC, `variants`.`position` ASC, `variants`.`id` ASC;
-- The rows that changed written back, upserted (crates/persistence/src/catalogue/write.rs, the
-- import's statements): for a new price, the product's row alone (its category, brand and
-- variant are as stored).
-- binds: text :id, text :shop_id, text @products.name, text @products.product_type, text @products.ean, text @products.sku, bigint :price, bigint @products.list_price_cents, bigint null, bool @products.promo_active, bigint @products.tax_rate_hundredths, bool @products.active, bool @products.track_stock, text @products.tags, text @products.photos, text @products.category_id, text @products.brand_id, text @products.search_text, bigint @products.created_at_ms, bigint :now_ms, text :shop_id, text @products.name, text @products.product_type, text @products.ean, text @products.sku, bigint :price, bigint @products.list_price_cents, bigint null, bool @products.promo_active, bigint @products.tax_rate_hundredths, bool @products.active, bool @products.track_stock, text @products.tags, text @products.photos, text @products.category_id, text @products.brand_id, text @products.search_text, bigint @products.created_at_ms, bigint :now_ms, text :shop_id
INSERT INTO `products` (`id`, `shop_id`, `name`, `product_type`, `ean`, `sku`, `price_cents`, `list_price_cents`, `compare_at_price_cents`, `promo_active`, `tax_rate_hundredths`, `active`, `track_stock`, `tags`, `photos`, `category_id`, `brand_id`, `search_text`, `created_at_ms`, `updated_at_ms`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (`id`) DO UPDATE SET `shop_id` = ?, `name` = ?, `product_type` = ?, `ean` = ?, `sku` = ?, `price_cents` = ?, `list_price_cents` = ?, `compare_at_price_cents` = ?, `promo_active` = ?, `tax_rate_hundredths` = ?, `active` = ?, `track_stock` = ?, `tags` = ?, `photos` = ?, `category_id` = ?, `brand_id` = ?, `search_text` = ?, `created_at_ms` = ?, `updated_at_ms` = ? WHERE (`products`.`shop_id` = ?);
-- The console's activity line, the event, and the event's receivers as of this commit (the
-- workers queue its deliveries later: webhooks/outbox.rs).
-- binds: text :write_id, text :shop_id, text :key_prefix, text 'product', text :id, text 'updated', text '["priceCents"]', bigint :now_ms
INSERT INTO `api_writes` (`id`, `shop_id`, `api_key_prefix`, `resource`, `resource_id`, `action`, `changed`, `created_at_ms`) VALUES (?, ?, ?, ?, ?, ?, ?, ?);
-- binds: text :event_id, text :shop_id, text 'product.updated', text 'product:' || :id, text :event_body, bigint :now_ms
INSERT INTO `webhook_events` (`id`, `shop_id`, `type`, `resource`, `body`, `created_at_ms`) VALUES (?, ?, ?, ?, ?, ?) RETURNING `seq`;
-- binds: text :shop_id, bigint $seq, bigint $seq
UPDATE webhook_events SET receivers = ( SELECT group_concat(e.id) FROM webhook_endpoints e WHERE e.shop_id = webhook_events.shop_id AND e.status = 'enabled' AND e.receives LIKE '%,' || webhook_events.type || ',%') WHERE shop_id = ? AND seq BETWEEN ? AND ? RETURNING receivers IS NOT NULL AS named;
COMMIT;
