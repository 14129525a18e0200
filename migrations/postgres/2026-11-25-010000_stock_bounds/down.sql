DELETE FROM idempotency_records WHERE outcome = 'out_of_range';
ALTER TABLE idempotency_records
    DROP CONSTRAINT idempotency_records_outcome_check,
    ADD CONSTRAINT idempotency_records_outcome_check
        CHECK (outcome IN ('applied', 'variant_not_found', 'not_tracked'));
ALTER TABLE stock_movements DROP CONSTRAINT stock_movements_stock_in_range;
ALTER TABLE variants
    DROP CONSTRAINT variants_stock_in_range,
    DROP CONSTRAINT variants_low_stock_threshold_in_range;
