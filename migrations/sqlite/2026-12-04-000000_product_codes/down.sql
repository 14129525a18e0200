DROP INDEX variants_shop_id_barcode;
DROP INDEX variants_shop_id_sku;
DROP INDEX products_shop_id_ean;
DROP INDEX products_shop_id_sku;
