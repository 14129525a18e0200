-- The queue's rows check no foreign key on PostgreSQL. Each check locks the row it names
-- (`FOR KEY SHARE`): every adjustment's fan-out locked its shop's endpoint rows, which every
-- concurrent write locks too (a multixact each time, written to the WAL), and each attempt
-- recorded locked its delivery again (docs/PERFORMANCE.md, "Webhooks").
-- What the keys did is done by the writers: an endpoint's deletion deletes its attempts,
-- deliveries and claims, the prune deletes attempts and deliveries before their events, and a
-- turn records no attempt of an endpoint deleted meanwhile. A fan-out that read an endpoint
-- just before its deletion committed can leave that endpoint's pending deliveries behind:
-- no reader of the queue sees them (every one joins the existing, enabled endpoints) and
-- the prune deletes them with their events.
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_delivery_id_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_endpoint_id_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_seq_fkey;
