-- API v2's product writes (issue 35) look for the product or variant of the shop that holds a
-- code (a SKU: a product's or a variant's; a barcode: a product's EAN or a variant's) before
-- they give it to another: one index probe each, not a scan of the shop's catalogue. Not
-- unique: rows imported with a shared code stay as they are. Keep in step with the other
-- backend's migrations.
CREATE INDEX products_shop_id_sku ON products (shop_id, sku) WHERE sku IS NOT NULL;
CREATE INDEX products_shop_id_ean ON products (shop_id, ean) WHERE ean IS NOT NULL;
CREATE INDEX variants_shop_id_sku ON variants (shop_id, sku) WHERE sku IS NOT NULL;
CREATE INDEX variants_shop_id_barcode ON variants (shop_id, barcode) WHERE barcode IS NOT NULL;
