DROP TABLE api_writes;
DELETE FROM idempotency_records WHERE outcome IN ('created', 'conflict');
ALTER TABLE idempotency_records
    DROP CONSTRAINT idempotency_records_resource_check,
    DROP CONSTRAINT idempotency_records_outcome_check,
    DROP COLUMN resource_id,
    DROP COLUMN member,
    ADD CONSTRAINT idempotency_records_outcome_check
        CHECK (outcome IN ('applied', 'variant_not_found', 'not_tracked', 'out_of_range',
                           'points_applied', 'client_not_found', 'insufficient_points',
                           'points_out_of_range'));
DROP INDEX clients_shop_id_email_key;
ALTER TABLE clients DROP COLUMN email_key;
