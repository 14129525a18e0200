-- Stock stays within ±10^12 (shop_domain::stock::MAX_ABS_STOCK) on PostgreSQL. The import and
-- the adjustment refuse anything else with a clear answer before it reaches these checks; they
-- are the last line, for any writer: without them a stock near the bigint's bound made an
-- adjustment fail with `bigint out of range` (a 500). Keep in step with migrations/sqlite.

ALTER TABLE variants
    ADD CONSTRAINT variants_stock_in_range
        CHECK (stock BETWEEN -1000000000000 AND 1000000000000),
    ADD CONSTRAINT variants_low_stock_threshold_in_range
        CHECK (low_stock_threshold BETWEEN -1000000000000 AND 1000000000000);

ALTER TABLE stock_movements
    ADD CONSTRAINT stock_movements_stock_in_range
        CHECK (previous_stock BETWEEN -1000000000000 AND 1000000000000
               AND new_stock BETWEEN -1000000000000 AND 1000000000000);

-- An adjustment refused because it would leave the range is recorded under its idempotency
-- key like the other refusals, and replayed.
ALTER TABLE idempotency_records
    DROP CONSTRAINT idempotency_records_outcome_check,
    ADD CONSTRAINT idempotency_records_outcome_check
        CHECK (outcome IN ('applied', 'variant_not_found', 'not_tracked', 'out_of_range'));
