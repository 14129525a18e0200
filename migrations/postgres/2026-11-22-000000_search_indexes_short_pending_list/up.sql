-- A short pending list for the trigram indexes (PostgreSQL). A GIN index puts new entries in a
-- pending list, unsorted, that every search reads in full until the list is merged into the
-- index: by a VACUUM (or autovacuum), or at once when it outgrows gin_pending_list_limit, 4 MB
-- by default. After a bulk load the products index's list held 474 pages: a rare code's search
-- read them all on every request (9 ms of its 28 ms at 100,000 products). At 256 kB a search
-- reads at most 32 pending pages, and writes still merge their entries in batches: turning the
-- list off (`fastupdate = off`) made the seed of 100,000 products 45% slower (123 -> 178 s),
-- this leaves it unchanged. See docs/PERFORMANCE.md.
ALTER INDEX products_search_text_trgm SET (gin_pending_list_limit = 256);
ALTER INDEX clients_search_text_trgm SET (gin_pending_list_limit = 256);
ALTER INDEX clients_phone_digits_trgm SET (gin_pending_list_limit = 256);
ALTER INDEX variants_search_text_trgm SET (gin_pending_list_limit = 256);

-- A longer list left by earlier writes stays until the next write or VACUUM: merge it now.
SELECT gin_clean_pending_list(index_name::regclass)
FROM (VALUES ('products_search_text_trgm'), ('clients_search_text_trgm'),
             ('clients_phone_digits_trgm'), ('variants_search_text_trgm')) AS trigram(index_name);
