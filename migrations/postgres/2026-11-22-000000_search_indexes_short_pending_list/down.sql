ALTER INDEX products_search_text_trgm RESET (gin_pending_list_limit);
ALTER INDEX clients_search_text_trgm RESET (gin_pending_list_limit);
ALTER INDEX clients_phone_digits_trgm RESET (gin_pending_list_limit);
ALTER INDEX variants_search_text_trgm RESET (gin_pending_list_limit);
