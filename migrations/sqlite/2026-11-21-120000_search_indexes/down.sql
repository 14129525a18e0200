DROP TRIGGER products_search_after_delete;
DROP TRIGGER products_search_after_update;
DROP TRIGGER products_search_after_insert;
DROP TABLE products_search;
DROP TABLE product_search_docs;
