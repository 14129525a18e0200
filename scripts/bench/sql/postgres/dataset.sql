-- A throw-away large dataset for the query plans (PostgreSQL), in SQL only; the same rows as
-- ../sqlite/dataset.sql. Run it on a database that `shop-api` has migrated and that holds no
-- shop yet: psql -v ON_ERROR_STOP=1 -f dataset.sql <url>. It ends with VACUUM ANALYZE.
-- Shop `bench` (id shop-bench): 100,000 products with one variant each, 100,000 clients,
-- 1,000,000 orders of two items each. Shop `small` (id shop-small): 1,000 of each (products,
-- clients, orders). Ids follow the seed's pattern: {slug}-p{i:07}, {slug}-p{i:07}-v0,
-- {slug}-c{i:07}, {slug}-o{i:08}. Two orders share each created_at (keyset ties).
-- Product names are "<garment> <material> <colour> <i>": `laine` is in one product in 7, `pull`
-- in one in 11; a reference such as `ref-0054321` is in exactly one.

INSERT INTO shops (id, slug, name, public_api, subscription, created_at_ms, updated_at_ms)
VALUES ('shop-bench', 'bench', 'Bench', true, 'active', 0, 0),
       ('shop-small', 'small', 'Small', true, 'active', 0, 0);

CREATE TEMP TABLE sizes (shop_id TEXT, slug TEXT, products INTEGER, clients INTEGER, orders INTEGER);
INSERT INTO sizes VALUES ('shop-bench', 'bench', 100000, 100000, 1000000),
                         ('shop-small', 'small', 1000, 1000, 1000);

CREATE TEMP TABLE gen_products AS
SELECT s.shop_id, s.slug, i,
       (ARRAY['Pull','Echarpe','Bonnet','Gants','Chaussettes','Veste','Robe','Jupe','Chemise','Pantalon','Manteau'])[i % 11 + 1]
       || ' ' || (ARRAY['laine','coton','lin','soie','cuir','velours','cachemire'])[i % 7 + 1]
       || ' ' || (ARRAY['rouge','bleu','vert','noir','blanc','gris','jaune','rose','marine','beige','bordeaux','ocre','kaki'])[i % 13 + 1]
       || ' ' || i AS name,
       '37' || lpad(i::text, 11, '0') AS ean,
       'REF-' || lpad(i::text, 7, '0') AS sku,
       'SKU-' || lpad(i::text, 7, '0') || '-0' AS variant_sku,
       '99' || lpad(i::text, 11, '0') AS barcode
FROM sizes s, generate_series(1, s.products) AS i;

INSERT INTO products (id, shop_id, name, product_type, ean, sku, price_cents, list_price_cents,
    compare_at_price_cents, promo_active, tax_rate_hundredths, active, track_stock, tags, photos,
    category_id, brand_id, search_text, created_at_ms, updated_at_ms)
SELECT slug || '-p' || lpad(i::text, 7, '0'), shop_id, name, 'simple', ean, sku, 1000 + i % 9000,
    1000 + i % 9000, NULL, false, 2000, i % 10 <> 0, true, '[]', '[]', NULL, NULL,
    lower(concat_ws(chr(10), name, ean, sku, variant_sku, barcode)),
    1700000000000 + i * 1000::bigint, 1700000000000 + i * 1000::bigint
FROM gen_products;

INSERT INTO variants (id, shop_id, product_id, label, sku, barcode, swatch_color, price_cents,
    stock, low_stock_threshold, is_default, active, position, search_text, track_stock)
SELECT slug || '-p' || lpad(i::text, 7, '0') || '-v0', shop_id, slug || '-p' || lpad(i::text, 7, '0'),
    'Taille unique', variant_sku, barcode, NULL, 1000 + i % 9000, i % 50, 5, true, true, 0,
    lower(concat_ws(chr(10), name, ean, sku, variant_sku, barcode)), true
FROM gen_products;

INSERT INTO clients (id, shop_id, name, display_name, phone, email, billing_company,
    billing_vat_number, billing_address, billing_city, billing_postal_code, billing_country,
    birth_date, points, points_expires_at_ms, points_lifetime, points_all_time,
    tier_achieved_at_ms, receipt_by_email, tags, note, anonymous_client_id, search_text,
    phone_digits, created_at_ms, updated_at_ms)
SELECT s.slug || '-c' || lpad(i::text, 7, '0'), s.shop_id, n.name, NULL,
    '+33 6 ' || lpad(i::text, 8, '0'), 'client' || i || '@example.com', NULL, NULL, NULL, NULL,
    NULL, 'FR', NULL, i % 500, NULL, i % 2000, i % 3000, NULL, false, '[]', NULL, NULL,
    lower(n.name || chr(10) || 'client' || i || '@example.com'),
    '6' || lpad(i::text, 8, '0'), 1700000000000 + i, 1700000000000 + i
FROM sizes s, generate_series(1, s.clients) AS i,
    LATERAL (SELECT (ARRAY['Martin','Bernard','Dubois','Thomas','Robert','Richard','Petit','Durand','Leroy','Moreau'])[i % 10 + 1] || ' ' || i AS name) n;

-- Status: 70 % completed, 15 % pending, 7 % preparing, 5 % ready, 3 % cancelled. One order in
-- three has a client.
INSERT INTO orders (id, shop_id, order_number, source, status, payment_status, subtotal_cents,
    discount_amount_cents, tax_amount_cents, total_cents, payment_method, paid_at_ms, client_id,
    signature, previous_signature, cumulative_total_ttc_snapshot, internal_note,
    payment_intent_id, created_at_ms, updated_at_ms)
SELECT s.slug || '-o' || lpad(i::text, 8, '0'), s.shop_id, i,
    CASE i % 3 WHEN 0 THEN 'pos' WHEN 1 THEN 'online' ELSE 'click-collect' END,
    CASE WHEN i % 100 < 70 THEN 'completed' WHEN i % 100 < 85 THEN 'pending'
         WHEN i % 100 < 92 THEN 'preparing' WHEN i % 100 < 97 THEN 'ready'
         ELSE 'cancelled' END,
    CASE WHEN i % 100 < 70 THEN 'paid' WHEN i % 100 < 97 THEN 'pending' ELSE 'refunded' END,
    5000, 0, 833, 5000, 'card', NULL,
    CASE WHEN i % 3 = 0 THEN s.slug || '-c' || lpad((i % s.clients + 1)::text, 7, '0') END,
    NULL, NULL, NULL, NULL, NULL,
    1700000000000 + (i / 2) * 60000::bigint, 1700000000000 + (i / 2) * 60000::bigint
FROM sizes s, generate_series(1, s.orders) AS i;

INSERT INTO order_items (id, shop_id, order_id, position, product_id, variant_id, product_name,
    unit_price_cents, quantity, total_cents, tax_rate_hundredths, tax_amount_cents)
SELECT s.slug || '-o' || lpad(i::text, 8, '0') || '-' || k, s.shop_id,
    s.slug || '-o' || lpad(i::text, 8, '0'), k,
    s.slug || '-p' || lpad(((i * 7 + k) % s.products + 1)::text, 7, '0'),
    s.slug || '-p' || lpad(((i * 7 + k) % s.products + 1)::text, 7, '0') || '-v0',
    'Article', 2500, 1, 2500, 2000, 417
FROM sizes s, generate_series(1, s.orders) AS i, generate_series(0, 1) AS k;

DROP TABLE gen_products;
DROP TABLE sizes;
VACUUM ANALYZE;
