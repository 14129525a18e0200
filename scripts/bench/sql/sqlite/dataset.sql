-- A throw-away large dataset for the query plans (SQLite), in SQL only. Run it on a database
-- that `shop-api` has migrated and that holds no shop yet, then ANALYZE (the last statement).
-- Shop `bench` (id shop-bench): 100,000 products with one variant each, 100,000 clients,
-- 1,000,000 orders of two items each. Shop `small` (id shop-small): 1,000 products, 1,000
-- clients, 1,000 orders. Ids follow the seed's pattern: {slug}-p{i:07}, {slug}-p{i:07}-v0,
-- {slug}-c{i:07}, {slug}-o{i:08}. Two orders share each created_at (keyset ties).
-- Product names are "<garment> <material> <colour> <i>": `laine` is in one product in 7, `pull`
-- in one in 11; a reference such as `ref-0054321` is in exactly one.

INSERT INTO shops (id, slug, name, public_api, subscription, created_at_ms, updated_at_ms)
VALUES ('shop-bench', 'bench', 'Bench', 1, 'active', 0, 0),
       ('shop-small', 'small', 'Small', 1, 'active', 0, 0);

CREATE TEMP TABLE sizes (shop_id TEXT, slug TEXT, products INTEGER, clients INTEGER, orders INTEGER);
INSERT INTO sizes VALUES ('shop-bench', 'bench', 100000, 100000, 1000000),
                         ('shop-small', 'small', 1000, 1000, 1000);

CREATE TEMP TABLE n (i INTEGER PRIMARY KEY);
WITH RECURSIVE c (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000)
INSERT INTO n SELECT i FROM c;

CREATE TEMP TABLE gen_products AS
SELECT s.shop_id, s.slug, n.i,
       json_extract('["Pull","Echarpe","Bonnet","Gants","Chaussettes","Veste","Robe","Jupe","Chemise","Pantalon","Manteau"]', '$[' || (n.i % 11) || ']')
       || ' ' || json_extract('["laine","coton","lin","soie","cuir","velours","cachemire"]', '$[' || (n.i % 7) || ']')
       || ' ' || json_extract('["rouge","bleu","vert","noir","blanc","gris","jaune","rose","marine","beige","bordeaux","ocre","kaki"]', '$[' || (n.i % 13) || ']')
       || ' ' || n.i AS name,
       printf('37%011d', n.i) AS ean,
       printf('REF-%07d', n.i) AS sku,
       printf('SKU-%07d-0', n.i) AS variant_sku,
       printf('99%011d', n.i) AS barcode
FROM sizes s JOIN n ON n.i <= s.products;

INSERT INTO products (id, shop_id, name, product_type, ean, sku, price_cents, list_price_cents,
    compare_at_price_cents, promo_active, tax_rate_hundredths, active, track_stock, tags, photos,
    category_id, brand_id, search_text, created_at_ms, updated_at_ms)
SELECT printf('%s-p%07d', slug, i), shop_id, name, 'simple', ean, sku, 1000 + i % 9000,
    1000 + i % 9000, NULL, 0, 2000, i % 10 <> 0, 1, '[]', '[]', NULL, NULL,
    lower(name || char(10) || ean || char(10) || sku || char(10) || variant_sku || char(10) || barcode),
    1700000000000 + i * 1000, 1700000000000 + i * 1000
FROM gen_products;

INSERT INTO variants (id, shop_id, product_id, label, sku, barcode, swatch_color, price_cents,
    stock, low_stock_threshold, is_default, active, position, search_text, track_stock)
SELECT printf('%s-p%07d-v0', slug, i), shop_id, printf('%s-p%07d', slug, i), 'Taille unique',
    variant_sku, barcode, NULL, 1000 + i % 9000, i % 50, 5, 1, 1, 0,
    lower(name || char(10) || ean || char(10) || sku || char(10) || variant_sku || char(10) || barcode), 1
FROM gen_products;

INSERT INTO clients (id, shop_id, name, display_name, phone, email, billing_company,
    billing_vat_number, billing_address, billing_city, billing_postal_code, billing_country,
    birth_date, points, points_expires_at_ms, points_lifetime, points_all_time,
    tier_achieved_at_ms, receipt_by_email, tags, note, anonymous_client_id, search_text,
    phone_digits, created_at_ms, updated_at_ms)
SELECT printf('%s-c%07d', s.slug, n.i), s.shop_id,
    json_extract('["Martin","Bernard","Dubois","Thomas","Robert","Richard","Petit","Durand","Leroy","Moreau"]', '$[' || (n.i % 10) || ']') || ' ' || n.i,
    NULL, printf('+33 6 %08d', n.i), printf('client%d@example.com', n.i), NULL, NULL, NULL, NULL,
    NULL, 'FR', NULL, n.i % 500, NULL, n.i % 2000, n.i % 3000, NULL, 0, '[]', NULL, NULL,
    lower(json_extract('["Martin","Bernard","Dubois","Thomas","Robert","Richard","Petit","Durand","Leroy","Moreau"]', '$[' || (n.i % 10) || ']') || ' ' || n.i || char(10) || printf('client%d@example.com', n.i)),
    printf('6%08d', n.i), 1700000000000 + n.i, 1700000000000 + n.i
FROM sizes s JOIN n ON n.i <= s.clients;

-- Status: 70 % completed, 15 % pending, 7 % preparing, 5 % ready, 3 % cancelled. One order in
-- three has a client.
INSERT INTO orders (id, shop_id, order_number, source, status, payment_status, subtotal_cents,
    discount_amount_cents, tax_amount_cents, total_cents, payment_method, paid_at_ms, client_id,
    signature, previous_signature, cumulative_total_ttc_snapshot, internal_note,
    payment_intent_id, created_at_ms, updated_at_ms)
SELECT printf('%s-o%08d', s.slug, n.i), s.shop_id, n.i,
    CASE n.i % 3 WHEN 0 THEN 'pos' WHEN 1 THEN 'online' ELSE 'click-collect' END,
    CASE WHEN n.i % 100 < 70 THEN 'completed' WHEN n.i % 100 < 85 THEN 'pending'
         WHEN n.i % 100 < 92 THEN 'preparing' WHEN n.i % 100 < 97 THEN 'ready'
         ELSE 'cancelled' END,
    CASE WHEN n.i % 100 < 70 THEN 'paid' WHEN n.i % 100 < 97 THEN 'pending' ELSE 'refunded' END,
    5000, 0, 833, 5000, 'card', NULL,
    CASE WHEN n.i % 3 = 0 THEN printf('%s-c%07d', s.slug, n.i % s.clients + 1) END,
    NULL, NULL, NULL, NULL, NULL,
    1700000000000 + (n.i / 2) * 60000, 1700000000000 + (n.i / 2) * 60000
FROM sizes s JOIN n ON n.i <= s.orders;

INSERT INTO order_items (id, shop_id, order_id, position, product_id, variant_id, product_name,
    unit_price_cents, quantity, total_cents, tax_rate_hundredths, tax_amount_cents)
SELECT printf('%s-o%08d-%d', s.slug, n.i, k.position), s.shop_id, printf('%s-o%08d', s.slug, n.i),
    k.position, printf('%s-p%07d', s.slug, (n.i * 7 + k.position) % s.products + 1),
    printf('%s-p%07d-v0', s.slug, (n.i * 7 + k.position) % s.products + 1), 'Article', 2500, 1,
    2500, 2000, 417
FROM sizes s JOIN n ON n.i <= s.orders
CROSS JOIN (SELECT 0 AS position UNION ALL SELECT 1) k;

DROP TABLE gen_products;
DROP TABLE n;
DROP TABLE sizes;
ANALYZE;
