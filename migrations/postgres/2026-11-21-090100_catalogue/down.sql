DROP TABLE variants;
DROP TABLE products;
DROP TABLE loyalty_tiers;
DROP TABLE brands;
DROP TABLE categories;
