-- GET /api/v1/orders?limit=20 on SQLite: the one statement the orders repository runs for a
-- first page (21 orders, limit + 1, newest first, with one row per item), as diesel sends it.
-- `ceiling-sqlite` (crates/bench) runs it on the same database file, directly on diesel's
-- synchronous SqliteConnection. crates/persistence's test `bench_statements` checks the setup,
-- the statement and its binds against what the adapter runs: when the adapter's statement
-- changes, copy the new one here.
--
-- setup: PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;
-- binds: text :shop_id, text :shop_id
SELECT `orders`.`id`, `orders`.`order_number`, `orders`.`source`, `orders`.`status`, `orders`.`payment_status`, `orders`.`subtotal_cents`, `orders`.`discount_amount_cents`, `orders`.`tax_amount_cents`, `orders`.`total_cents`, `orders`.`payment_method`, `orders`.`paid_at_ms`, `orders`.`client_id`, `orders`.`created_at_ms`, `orders`.`updated_at_ms`, `order_items`.`id`, `order_items`.`product_id`, `order_items`.`variant_id`, `order_items`.`product_name`, `order_items`.`unit_price_cents`, `order_items`.`quantity`, `order_items`.`total_cents`, `order_items`.`tax_rate_hundredths`, `order_items`.`tax_amount_cents` FROM (`orders` LEFT OUTER JOIN `order_items` ON ((`order_items`.`order_id` = `orders`.`id`) AND (`order_items`.`shop_id` = `orders`.`shop_id`))) WHERE ((`orders`.`shop_id` = ?) AND (`orders`.`id` IN (SELECT `orders`.`id` FROM `orders` WHERE (`orders`.`shop_id` = ?) ORDER BY `orders`.`created_at_ms` DESC, `orders`.`id` DESC LIMIT 21))) ORDER BY `orders`.`created_at_ms` DESC, `orders`.`id` DESC, `order_items`.`position` ASC
