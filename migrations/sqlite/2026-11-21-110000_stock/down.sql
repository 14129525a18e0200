DROP TABLE idempotency_records;
DROP TABLE stock_movements;
DROP INDEX variants_shop_id_id;
ALTER TABLE variants DROP COLUMN search_text;
