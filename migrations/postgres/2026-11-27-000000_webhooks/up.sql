-- Webhooks (API v2, issue 34; docs/api-decisions.md, "Webhooks"). Keep in step with
-- migrations/sqlite. Id columns are COLLATE "C" as everywhere else.

-- A shop's endpoint. `events` is what the key asked for ('*' or a comma list); `receives` is
-- what it gets: the types expanded and kept to those the creating key could read, written
-- ',a,b,' so that the fan-out matches one type with LIKE '%,type,%'.
CREATE TABLE webhook_endpoints (
    id                      TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    shop_id                 TEXT COLLATE "C" NOT NULL REFERENCES shops (id),
    url                     TEXT NOT NULL,
    events                  TEXT NOT NULL,
    receives                TEXT NOT NULL,
    -- The creating key's scopes (comma list): what `*` may cover as types are added.
    creator_scopes          TEXT NOT NULL,
    description             TEXT NOT NULL,
    status                  TEXT NOT NULL,
    disabled_reason         TEXT,
    -- whsec_…; the previous one signs too until previous_secret_until_ms (a rotation).
    secret                  TEXT NOT NULL,
    previous_secret         TEXT,
    previous_secret_until_ms BIGINT,
    -- The first failed attempt since the last success: `failing` after WEBHOOK_DISABLE_AFTER.
    failing_since_ms        BIGINT,
    failures_in_a_row       INTEGER NOT NULL DEFAULT 0,
    last_attempt_status     TEXT,
    last_attempt_at_ms      BIGINT,
    created_at_ms           BIGINT NOT NULL,
    updated_at_ms           BIGINT NOT NULL
);
CREATE INDEX webhook_endpoints_shop_id_id ON webhook_endpoints (shop_id, id);

-- The outbox: one row per change, written in the change's transaction. `body` is the whole
-- JSON the receivers get; `resource` ('stock:<variant id>', 'product:<id>', …) groups the
-- events that supersede one another.
CREATE TABLE webhook_events (
    seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id            TEXT COLLATE "C" NOT NULL UNIQUE,
    shop_id       TEXT COLLATE "C" NOT NULL REFERENCES shops (id),
    type          TEXT NOT NULL,
    resource      TEXT COLLATE "C" NOT NULL,
    body          TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL
);
CREATE INDEX webhook_events_shop_id_seq ON webhook_events (shop_id, seq);
CREATE INDEX webhook_events_created_at ON webhook_events (created_at_ms);

-- One event for one endpoint: pending until it succeeded, failed for good, or was superseded
-- by a newer event of its resource.
CREATE TABLE webhook_deliveries (
    id                 TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    shop_id            TEXT COLLATE "C" NOT NULL,
    endpoint_id        TEXT COLLATE "C" NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_seq          BIGINT NOT NULL REFERENCES webhook_events (seq) ON DELETE CASCADE,
    resource           TEXT COLLATE "C" NOT NULL,
    status             TEXT NOT NULL,
    attempts           INTEGER NOT NULL DEFAULT 0,
    next_attempt_at_ms BIGINT,
    created_at_ms      BIGINT NOT NULL,
    updated_at_ms      BIGINT NOT NULL
);
-- What is due; the pending events of one endpoint and resource; an endpoint's list.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at_ms) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint_resource ON webhook_deliveries (endpoint_id, resource, event_seq);
CREATE INDEX webhook_deliveries_endpoint_created ON webhook_deliveries (endpoint_id, created_at_ms, id);
CREATE INDEX webhook_deliveries_event_seq ON webhook_deliveries (event_seq);

-- One attempt made: what was sent and what came back (an excerpt of at most 1 KiB).
CREATE TABLE webhook_attempts (
    id                TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    delivery_id       TEXT COLLATE "C" NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    endpoint_id       TEXT COLLATE "C" NOT NULL,
    attempt           INTEGER NOT NULL,
    status            TEXT NOT NULL,
    response_status   INTEGER,
    duration_ms       BIGINT NOT NULL,
    error             TEXT,
    response_excerpt  TEXT NOT NULL,
    created_at_ms     BIGINT NOT NULL
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, attempt);
CREATE INDEX webhook_attempts_endpoint_created ON webhook_attempts (endpoint_id, created_at_ms, id);

-- At most one attempt in flight per endpoint and resource: a claim is this row; an instance
-- that died leaves it until claimed_until_ms, when another takes it over.
CREATE TABLE webhook_inflight (
    endpoint_id      TEXT COLLATE "C" NOT NULL,
    resource         TEXT COLLATE "C" NOT NULL,
    claimed_by       TEXT NOT NULL,
    claimed_until_ms BIGINT NOT NULL,
    PRIMARY KEY (endpoint_id, resource)
);
