-- The console's list of the writes made by API keys (issue 35) walks a shop's points
-- adjustments newest first, as it walks its `api_writes`: one index range from the page's
-- cursor, not every adjustment of the shop sorted at each page. The index by client stays for
-- a client's own adjustments. Keep in step with the other backend's migrations.
CREATE INDEX loyalty_adjustments_shop_id_created_at_id
    ON loyalty_adjustments (shop_id, created_at_ms, id);
