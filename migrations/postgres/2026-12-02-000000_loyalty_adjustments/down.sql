DELETE FROM idempotency_records
WHERE outcome IN ('points_applied', 'client_not_found', 'insufficient_points',
                  'points_out_of_range');
ALTER TABLE idempotency_records
    DROP CONSTRAINT idempotency_records_points_applied_check,
    DROP CONSTRAINT idempotency_records_outcome_check,
    DROP COLUMN loyalty_adjustment_id,
    ADD CONSTRAINT idempotency_records_outcome_check
        CHECK (outcome IN ('applied', 'variant_not_found', 'not_tracked', 'out_of_range'));
DROP TABLE loyalty_adjustments;
