-- GET /orders?status=: newest first within one status, reading only that status's orders. The
-- orders a back office filters for (pending, ready) are a sliver of a shop's history: without
-- this index, a page of them walks (shop, created_at, id) through every completed order.
CREATE INDEX orders_shop_id_status_created_at_id ON orders (shop_id, status, created_at_ms, id);
