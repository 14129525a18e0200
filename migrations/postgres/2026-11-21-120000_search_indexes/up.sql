-- Search indexes (PostgreSQL): trigram GIN indexes, which serve the `LIKE '%term%'` filters of
-- `q` as they are written (pg_trgm extracts the term's trigrams from the pattern; a term of one
-- or two characters has none and the planner scans instead). PostgreSQL keeps them in step with
-- every write itself. Keep in step with migrations/sqlite.
--
-- pg_trgm ships with PostgreSQL (contrib) and is a trusted extension: a database owner may
-- create it without being a superuser.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- GET /products?q=
CREATE INDEX products_search_text_trgm ON products USING gin (search_text gin_trgm_ops);
-- GET /clients?q=: the text, and the normalised phone for a phone-like term.
CREATE INDEX clients_search_text_trgm ON clients USING gin (search_text gin_trgm_ops);
CREATE INDEX clients_phone_digits_trgm ON clients USING gin (phone_digits gin_trgm_ops);
-- GET /stock?q=
CREATE INDEX variants_search_text_trgm ON variants USING gin (search_text gin_trgm_ops);
