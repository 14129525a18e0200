DROP INDEX variants_shop_id_stock_updated_at;
DROP INDEX clients_shop_id_updated_at;
DROP INDEX orders_shop_id_updated_at;
ALTER TABLE variants DROP COLUMN stock_updated_at_ms;
