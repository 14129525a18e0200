-- POST /api/v2/clients/{id}/loyalty/adjustments with {"points": 1, "reason": "bench"}, no
-- Idempotency-Key, on SQLite (a credit that crosses no tier threshold). The statements the
-- adapter sends for it, in order, with the connection's setup and each statement's binds (read
-- from the running server, as product_patch.sql's). `ceiling-sqlite --write` runs them: see
-- product_patch.sql for the binds' notation; `:adjustment_id` is a fresh id.
--
-- setup: PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;
-- target: clients

-- The write's turn in the process, then SQLite's write lock (diesel's immediate transaction),
-- tried without waiting for another process's lock (crates/persistence/src/database/write_runner.rs).
PRAGMA busy_timeout = 0;
BEGIN IMMEDIATE;
PRAGMA busy_timeout = 5000;
-- (b) The client's three counters, moved by one guarded relative UPDATE (clients/points.rs).
-- binds: bigint 1, bigint 1, bigint 1, bigint :now_ms, bigint :now_ms, bigint 1, text :shop_id, text :id, bigint -9223372036854775808, bigint 999999999999999, bigint 999999999999999, bigint 999999999999999
UPDATE `clients` SET `points` = (`clients`.`points` + ?), `points_lifetime` = (`clients`.`points_lifetime` + ?), `points_all_time` = (`clients`.`points_all_time` + ?), `updated_at_ms` = CASE WHEN ((`clients`.`updated_at_ms` < ?)) THEN (?) ELSE ((`clients`.`updated_at_ms` + ?)) END WHERE (((((`clients`.`shop_id` = ?) AND (`clients`.`id` = ?)) AND (`clients`.`points` BETWEEN ? AND ?)) AND (`clients`.`points_lifetime` <= ?)) AND (`clients`.`points_all_time` <= ?)) RETURNING `points`, `points_lifetime`, `points_all_time`;
-- (c) The tiers, to tell whether the credit crossed a threshold (it does not here).
-- binds: text :shop_id
SELECT `loyalty_tiers`.`id`, `loyalty_tiers`.`shop_id`, `loyalty_tiers`.`name`, `loyalty_tiers`.`min_points_lifetime`, `loyalty_tiers`.`color` FROM `loyalty_tiers` WHERE (`loyalty_tiers`.`shop_id` = ?) ORDER BY `loyalty_tiers`.`min_points_lifetime` ASC, `loyalty_tiers`.`id` ASC;
-- (d) The adjustment kept.
-- binds: text :adjustment_id, text :shop_id, text :id, bigint 1, bigint $points - 1, bigint $points, text 'bench', text :key_prefix, bigint :now_ms
INSERT INTO `loyalty_adjustments` (`id`, `shop_id`, `client_id`, `delta`, `previous_points`, `new_points`, `reason`, `api_key_prefix`, `created_at_ms`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?);
-- (e) The client read back as just written, for its client.updated event; the event, and
-- its receivers as of this commit.
-- binds: text :shop_id, text :id
SELECT `clients`.`id`, `clients`.`shop_id`, `clients`.`name`, `clients`.`display_name`, `clients`.`phone`, `clients`.`email`, `clients`.`billing_company`, `clients`.`billing_vat_number`, `clients`.`billing_address`, `clients`.`billing_city`, `clients`.`billing_postal_code`, `clients`.`billing_country`, `clients`.`birth_date`, `clients`.`points`, `clients`.`points_expires_at_ms`, `clients`.`points_lifetime`, `clients`.`points_all_time`, `clients`.`tier_achieved_at_ms`, `clients`.`receipt_by_email`, `clients`.`tags`, `clients`.`created_at_ms`, `clients`.`updated_at_ms` FROM `clients` WHERE ((`clients`.`shop_id` = ?) AND (`clients`.`id` = ?)) ORDER BY `clients`.`id` ASC;
-- binds: text :event_id, text :shop_id, text 'client.updated', text 'client:' || :id, text :event_body, bigint :now_ms
INSERT INTO `webhook_events` (`id`, `shop_id`, `type`, `resource`, `body`, `created_at_ms`) VALUES (?, ?, ?, ?, ?, ?) RETURNING `seq`;
-- binds: text :shop_id, bigint $seq, bigint $seq
UPDATE webhook_events SET receivers = ( SELECT group_concat(e.id) FROM webhook_endpoints e WHERE e.shop_id = webhook_events.shop_id AND e.status = 'enabled' AND e.receives LIKE '%,' || webhook_events.type || ',%') WHERE shop_id = ? AND seq BETWEEN ? AND ? RETURNING receivers IS NOT NULL AS named;
COMMIT;
