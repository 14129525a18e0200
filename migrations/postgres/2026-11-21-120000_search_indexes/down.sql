DROP INDEX variants_search_text_trgm;
DROP INDEX clients_phone_digits_trgm;
DROP INDEX clients_search_text_trgm;
DROP INDEX products_search_text_trgm;
-- pg_trgm stays: it may have been there before this migration, and other objects may use it.
